/** `loop-controller init`: a starter `.github/loop.yml` (checked by the loader before it is written). */
import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { parseLoopConfig, simpleModeConfig } from '../config/load-config.js'
import { agentNameKey } from '../domain/agents/types.js'
import { VERSION } from '../version.js'
import { EXIT } from './exit-codes.js'
import type { CliIo } from './io.js'
import type { Values } from './options.js'
import { keepStateOutOfGit } from './repository.js'

/** Where a release's loop config schema is served: the file at the release's own tag. */
export function schemaUrl(version: string): string {
  return `https://raw.githubusercontent.com/loop-controller/loop-controller/v${version}/schema/loop-config.schema.json`
}

/** Writes the starter config from `--work`/`--agent`/`--verify` (Claude Code by default) and keeps `.loop/` out of git. */
export async function init(root: string, values: Values, io: CliIo): Promise<number> {
  const target = join(root, '.github', 'loop.yml')
  if (existsSync(target) && !values.force) {
    io.stderr(`${relative(io.cwd, target)} already exists; use --force to overwrite it.\n`)
    return EXIT.usage
  }
  // Without a work command the starter uses a preset: Claude Code unless --agent names another.
  const agent = values.work !== undefined ? 'command' : agentNameKey(values.agent ?? 'claude')
  const agentLines =
    agent === 'command'
      ? `work:\n  run: ${JSON.stringify(values.work ?? '')}\n  timeout: 30m`
      : `agent: ${agent}\nwork:\n  timeout: 30m`
  const verify = values.verify?.length ? values.verify : ['npm test']
  const checks = verify
    .map(
      (run, i) =>
        `  - name: check-${i + 1}\n    run: ${JSON.stringify(run)}\n    kind: ${simpleModeConfig({ work: 'true', verify: [run] }).checks[0]?.kind ?? 'custom'}`,
    )
    .join('\n')
  // The schema of this very release: the release workflow tags vX.Y.Z, so the URL resolves for good.
  const text = `# yaml-language-server: $schema=${schemaUrl(VERSION)}
# goal: left out, so a loop started from an issue takes its goal from the issue (set one to override).
pipeline: iterate
max-iterations: 10
${agentLines}
checks:
${checks}
`
  parseLoopConfig(text, '.github/loop.yml')
  await mkdir(join(root, '.github'), { recursive: true })
  await writeFile(target, text)
  await keepStateOutOfGit(root, join(root, '.loop'))
  io.stdout(
    `wrote ${relative(io.cwd, target)}; state will live in .loop/ (kept out of git). Next: loop-controller run\n`,
  )
  return EXIT.complete
}
