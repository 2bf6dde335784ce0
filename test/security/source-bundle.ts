/**
 * The action built from the source under test (not the committed dist/, which lags behind a change
 * until someone rebuilds it): esbuild bundles src/index.ts into a temporary action folder with
 * action.yml (and the reusable workflow) beside it, so the sandbox's runner runs exactly this tree's code. LOOP_ACTION_SOURCE names
 * another tree (with node_modules) to build instead, e.g. a checkout from before a fix, to see a planted
 * attack succeed there.
 */
import { execFile } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll } from 'vitest'
import { ACTION_DIR } from '../e2e/fixtures.js'

/** Builds the action into a fresh folder; returns it and a function that removes it. */
export async function buildActionFromSource(): Promise<{ actionDir: string; remove: () => void }> {
  const source = process.env.LOOP_ACTION_SOURCE || ACTION_DIR
  const actionDir = mkdtempSync(join(tmpdir(), 'loop-action-src-'))
  mkdirSync(join(actionDir, 'dist'))
  copyFileSync(join(source, 'action.yml'), join(actionDir, 'action.yml'))
  // The reusable workflow beside it: the sandbox reads `loop-controller/loop-controller/.github/workflows/loop.yml@v1`
  // (the fan-out example's) from the action's folder.
  mkdirSync(join(actionDir, '.github', 'workflows'), { recursive: true })
  copyFileSync(join(source, '.github', 'workflows', 'loop.yml'), join(actionDir, '.github', 'workflows', 'loop.yml'))
  writeFileSync(join(actionDir, 'dist', 'package.json'), '{ "type": "module" }\n')
  const esbuild = join(ACTION_DIR, 'node_modules', '.bin', 'esbuild')
  await promisify(execFile)(
    esbuild,
    [
      join(source, 'src', 'index.ts'),
      '--bundle',
      '--platform=node',
      '--format=esm',
      '--target=node20',
      '--log-level=error',
      // The bundled CommonJS dependencies call require(); an ES module has none of its own.
      "--banner:js=import { createRequire as loopCreateRequire } from 'node:module'; const require = loopCreateRequire(import.meta.url);",
      `--outfile=${join(actionDir, 'dist', 'index.js')}`,
    ],
    { cwd: source },
  )
  return { actionDir, remove: () => rmSync(actionDir, { recursive: true, force: true }) }
}

/**
 * For a test file: builds the action from source once before its tests and removes it after them.
 * `actionDir` is read inside tests (it is set once the build is done).
 */
export function useActionFromSource(): { readonly actionDir: string } {
  let built: { actionDir: string; remove: () => void } | undefined
  beforeAll(async () => {
    built = await buildActionFromSource()
  }, 2 * 60_000)
  afterAll(() => built?.remove())
  return {
    get actionDir() {
      if (!built) throw new Error('the action from source is built in beforeAll; read actionDir inside a test')
      return built.actionDir
    },
  }
}
