/**
 * A loop run through the GitHub sandbox (test/sandbox) with the action's bundle, as the bench figures
 * that count jobs, requests and wall time run it.
 */
import { cpSync, mkdirSync } from 'node:fs'
import { delimiter, join, resolve } from 'node:path'
import { type GitHubDemoOptions, type GitHubDemoResult, runGitHubDemo } from '../scripts/demo-github.js'
import { bundleFolder } from './startup.js'

const ROOT = resolve(import.meta.dirname, '..')

/**
 * The action as the sandbox runs it, in `<work>/action`: its metadata and the bundle under dist/ (the
 * sandbox runs `<actionDir>/<runs.main>`), and for a caller of the reusable workflow that workflow
 * under .github/workflows, where the sandbox reads it.
 */
export function sandboxAction(work: string, options: { reusableWorkflow?: boolean } = {}): string {
  const actionDir = join(work, 'action')
  mkdirSync(actionDir, { recursive: true })
  cpSync(join(ROOT, 'action.yml'), join(actionDir, 'action.yml'))
  if (options.reusableWorkflow) {
    mkdirSync(join(actionDir, '.github', 'workflows'), { recursive: true })
    cpSync(join(ROOT, '.github', 'workflows', 'loop.yml'), join(actionDir, '.github', 'workflows', 'loop.yml'))
  }
  cpSync(bundleFolder().dir, join(actionDir, 'dist'), { recursive: true })
  return actionDir
}

/** One loop through the sandbox, quiet, with this repository's node_modules/.bin on the jobs' PATH. */
export function runSandboxLoop(options: Omit<GitHubDemoOptions, 'extraEnv' | 'print'>): Promise<GitHubDemoResult> {
  return runGitHubDemo({
    ...options,
    extraEnv: { PATH: `${join(ROOT, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}` },
    print: () => {},
  })
}
