/**
 * A real git repository for the overhead figures: a copy of this project's own tracked sources, tests,
 * docs and examples (about 450 files, 1.5 MB), committed once. An iteration in it pays for the git work
 * a real one does (undoing an unsaved checkpoint, snapshots of the work tree, changes since, diff stat,
 * the checkpoint commit), on a tree of a realistic size.
 */
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

const ROOT = resolve(import.meta.dirname, '..')
const COPIED = ['src', 'test', 'docs', 'examples']
/** The secrets a job's environment holds; the redactor masks every form of them, as in the action and CLI. */
export const BENCH_SECRETS: Readonly<Record<string, string>> = {
  GITHUB_TOKEN: 'ghs_benchmarkBENCHMARKbenchmark0123456789',
  ANTHROPIC_API_KEY: 'sk-ant-benchmark-0123456789abcdefghijklmnop',
  NPM_TOKEN: 'npm_benchmark0123456789abcdefghijklmnopqr',
  DATABASE_PASSWORD: 'correct-horse-battery-staple-bench',
}

function git(cwd: string, args: readonly string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
}

/** Creates the repository in `dir` and returns its first commit. `.loop` is kept out of git, as the CLI does. */
export function createGitProject(dir: string): string {
  const files = git(ROOT, ['ls-files', '-z', ...COPIED])
    .split('\0')
    .filter(Boolean)
  for (const file of files) {
    mkdirSync(dirname(join(dir, file)), { recursive: true })
    try {
      copyFileSync(join(ROOT, file), join(dir, file))
    } catch {
      // A tracked file deleted in the work tree: the copy simply lacks it.
    }
  }
  git(dir, ['init', '-q', '-b', 'main'])
  writeFileSync(join(dir, '.git', 'info', 'exclude'), '.loop\n')
  git(dir, ['add', '-A'])
  git(dir, ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', 'commit', '-q', '-m', 'project'])
  return git(dir, ['rev-parse', 'HEAD']).trim()
}

/** Puts the repository back at `base` with a clean work tree and no loop state, between measured runs. */
export function resetGitProject(dir: string, base: string): void {
  git(dir, ['reset', '-q', '--hard', base])
  git(dir, ['clean', '-q', '-fd'])
  rmSync(join(dir, '.loop'), { recursive: true, force: true })
}

/** The work command of the measured iterations: a one-line edit, so that there is something to commit. */
export const EDIT_COMMAND = `printf '// edited by the benchmark\\n' >> src/constants.ts`
