// One step of a job, as the runner runs it: `run:` through bash (`bash --noprofile --norc -eo pipefail`),
// actions/checkout, the action under test (`node <runs.main>`), upload-/download-artifact within the
// run, actions/setup-node as a no-op that says so. Any other `uses:` is refused: the step fails and
// the engine records a problem naming it.
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parse } from 'yaml'
import { downloadThroughRest } from './artifact-rest-download.js'
import { type ArtifactStore, DOWNLOAD_INPUTS, UPLOAD_INPUTS } from './artifact-store.js'
import { CHECKOUT_INPUTS, type CheckoutRequest, checkout } from './checkout.js'
import { type StepSpec, usesActionUnderTest } from './workflow-file.js'

/** The runner-relevant parts of action.yml. */
export interface ActionMetadata {
  main: string
  post: string | undefined
  defaults: Record<string, string>
}

/** Reads action.yml, or assumes `dist/index.js` when there is none. */
export function readActionMetadata(actionDir: string): ActionMetadata {
  const file = ['action.yml', 'action.yaml'].map((name) => join(actionDir, name)).find(existsSync)
  if (!file) return { main: 'dist/index.js', post: undefined, defaults: {} }
  const doc = (parse(readFileSync(file, 'utf8')) ?? {}) as {
    runs?: { using?: string; main?: string; post?: string }
    inputs?: Record<string, { default?: unknown }>
  }
  if (!doc.runs?.main || !/^node\d+$/.test(doc.runs.using ?? '')) {
    throw new Error(
      `sandbox: ${file} must declare 'runs.using: nodeNN' and 'runs.main'; got ${JSON.stringify(doc.runs)}`,
    )
  }
  const defaults: Record<string, string> = {}
  for (const [name, input] of Object.entries(doc.inputs ?? {})) {
    if (input?.default !== undefined) defaults[name] = String(input.default)
  }
  return { main: doc.runs.main, post: doc.runs.post, defaults }
}

export interface ProcessResult {
  exitCode: number | null
  stdout: string
  stderr: string
  timedOut: boolean
  killed: boolean
}

const OUTPUT_CAP = 1024 * 1024

/** Runs a child process until it exits or the deadline passes (then SIGKILL: `timedOut`). */
export function runProcess(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; deadline: number; track(child: ReturnType<typeof spawn>): void },
): Promise<ProcessResult> {
  return new Promise((resolvePromise, reject) => {
    // Its own process group, so a kill reaches what it started (a step's `sleep`), as the runner's does.
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    options.track(child)
    let stdout = ''
    let stderr = ''
    const keepTail = (text: string) => (text.length > OUTPUT_CAP ? text.slice(text.length - OUTPUT_CAP) : text)
    child.stdout.on('data', (chunk: Buffer) => {
      stdout = keepTail(stdout + chunk.toString('utf8'))
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = keepTail(stderr + chunk.toString('utf8'))
    })
    let timedOut = false
    const timer = setTimeout(
      () => {
        timedOut = true
        killTree(child, 'SIGKILL')
      },
      Math.max(0, options.deadline - Date.now()),
    )
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolvePromise({ exitCode: code, stdout, stderr, timedOut, killed: !timedOut && signal !== null })
    })
  })
}

/** Signals a step's process and everything it started (its process group). */
export function killTree(child: ReturnType<typeof spawn>, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal)
    else child.kill(signal)
  } catch {
    child.kill(signal)
  }
}

/** What a step needs from its job. */
export interface StepIo {
  workspace: string
  temp: string
  deadline: number
  /** The step's whole environment (runner variables, env:, GITHUB_ENV, INPUT_* for the action). */
  env: Record<string, string>
  /** The step's `with:`, interpolated. */
  with: Record<string, string>
  /** The step's `run:`, interpolated. */
  script: string
  checkout: Omit<CheckoutRequest, 'workspace' | 'runnerTemp' | 'fetchDepth' | 'persistCredentials' | 'major'>
  artifacts: ArtifactStore
  actionDir: string
  action: ActionMetadata
  track(child: ReturnType<typeof spawn>): void
}

/** A step's result; `refused` names what the engine does not run. */
export type StepRun = ProcessResult & { refused?: string }

const done = (stdout: string, exitCode = 0, stderr = ''): StepRun => ({
  exitCode,
  stdout,
  stderr,
  timedOut: false,
  killed: false,
})

/** Refuses `with:` keys an action stand-in would otherwise ignore. */
function unknownInputs(io: StepIo, known: Set<string>): string | undefined {
  const unknown = Object.keys(io.with).filter((key) => !known.has(key))
  return unknown.length > 0 ? unknown.join(', ') : undefined
}

/** Runs one step (its `if:` already held). */
export async function runStep(step: StepSpec, io: StepIo): Promise<StepRun> {
  if (step.run !== undefined) {
    const script = join(io.temp, `${randomUUID()}.sh`)
    writeFileSync(script, io.script)
    const cwd = step.workingDirectory ? resolve(io.workspace, step.workingDirectory) : io.workspace
    if (!existsSync(cwd)) return done('', 1, `sandbox: working-directory ${cwd} does not exist`)
    return runProcess('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { ...io, cwd })
  }
  const uses = step.uses ?? ''
  const name = uses.replace(/@.*$/, '')
  try {
    if (name === 'actions/checkout') {
      const unknown = unknownInputs(io, CHECKOUT_INPUTS)
      if (unknown) return { ...done('', 1), refused: `${uses} with ${unknown}` }
      await checkout({
        ...io.checkout,
        workspace: io.workspace,
        runnerTemp: io.temp,
        // 0 (full history) unless the step says; GitHub's default is 1, and the loop's workflows say 0.
        fetchDepth: Number(io.with['fetch-depth'] ?? 0),
        persistCredentials: io.with['persist-credentials'] !== 'false',
        major: Number(/@v(\d+)/.exec(uses)?.[1] ?? 4),
      })
      return done('')
    }
    if (name === 'actions/setup-node') {
      return done(`sandbox: ${uses} is a no-op here: steps run on this Node (${process.version})\n`)
    }
    if (name === 'actions/upload-artifact') {
      const unknown = unknownInputs(io, UPLOAD_INPUTS)
      if (unknown) return { ...done('', 1), refused: `${uses} with ${unknown}` }
      return done(`${io.artifacts.upload(io.workspace, io.with, attemptOf(io))}\n`)
    }
    if (name === 'actions/download-artifact') {
      const unknown = unknownInputs(io, DOWNLOAD_INPUTS)
      if (unknown) return { ...done('', 1), refused: `${uses} with ${unknown}` }
      if (io.with['github-token']) {
        const request = {
          workspace: io.workspace,
          apiUrl: io.env.GITHUB_API_URL ?? '',
          repository: io.env.GITHUB_REPOSITORY ?? '',
          runId: io.env.GITHUB_RUN_ID ?? '',
          with: io.with,
          major: Number(/@v(\d+)/.exec(uses)?.[1] ?? 4),
        }
        return done(`${await downloadThroughRest(request)}\n`)
      }
      return done(`${io.artifacts.download(io.workspace, io.with, attemptOf(io))}\n`)
    }
  } catch (error) {
    return done('', 1, `${uses}: ${(error as Error).message}\n`)
  }
  if (usesActionUnderTest(uses)) return runNode(join(io.actionDir, io.action.main), io)
  return { ...done('', 1), refused: `uses: ${uses}` }
}

const attemptOf = (io: StepIo) => Number(io.env.GITHUB_RUN_ATTEMPT ?? 1)

/** The runner runs `node <main>` (or `<post>`) with the workspace as the working directory. */
export function runNode(script: string, io: Pick<StepIo, 'workspace' | 'env' | 'deadline' | 'track'>) {
  if (!existsSync(script)) {
    return Promise.resolve(
      done('', 1, `sandbox: the action's entry point ${script} does not exist (build it with 'npm run bundle')`),
    )
  }
  return runProcess(process.execPath, [script], { ...io, cwd: io.workspace })
}
