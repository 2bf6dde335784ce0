// `npm run demo:github`: runs the demo loop (examples/demo) through the GitHub sandbox on loopback,
// job after job, as GitHub would run the action's bundle (dist/index.js): from the first dispatch to
// the end of the chain. Prints each job's summary as it finishes, and where the rendered summaries
// and the final comment were written.
//
//   npm run bundle && npm run demo:github [-- --keep-sandbox]
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { loopWorkflow } from '../test/sandbox/loop-workflow.js'
import { startSandbox } from '../test/sandbox/sandbox.js'
import type { JobRecord } from '../test/sandbox/workflow-engine.js'

/** The workflow the demo runs: the action as a step (examples/workflows/loop-step.yml), on the demo project. */
export const DEMO_WORKFLOW = loopWorkflow({ name: 'loop (demo)' })

/** What to run through the sandbox. */
export interface GitHubDemoOptions {
  /** The action (action.yml and its bundle). */
  actionDir: string
  /** The project the loop works on, copied into the sandbox's remote. */
  projectDir?: string
  /** Files added on top of the project (the workflow, at least). */
  files: Record<string, string>
  workflowFile: string
  /** The first dispatch's inputs. */
  inputs: Record<string, string>
  /** Folder for the rendered summaries and the final comment. */
  out: string
  extraEnv?: Record<string, string>
  maxJobs?: number
  jobTimeoutMs?: number
  /** The whole chain's limit. */
  timeoutMs?: number
  keepSandbox?: boolean
  print?: (line: string) => void
}

/** What the demo produced. */
export interface GitHubDemoResult {
  jobs: JobRecord[]
  summaryFiles: string[]
  /** The last comment the loop left on its issue or pull request, if any. */
  finalCommentFile: string | undefined
  /** API validation problems and engine problems (empty when the run was faithful). */
  problems: string[]
  /** The last job's `status` output, when the action sets one. */
  finalStatus: string | undefined
  /** REST and GraphQL requests the jobs made with their own `GITHUB_TOKEN` (a person's are not counted). */
  jobTokenRequests: number
  ok: boolean
}

/** Runs one loop through the sandbox from the first dispatch until no job is running or pending. */
export async function runGitHubDemo(options: GitHubDemoOptions): Promise<GitHubDemoResult> {
  const print = options.print ?? ((line: string) => console.log(line))
  const summaries = join(options.out, 'summaries')
  mkdirSync(summaries, { recursive: true })
  const sandbox = await startSandbox({
    actionDir: options.actionDir,
    ...(options.projectDir ? { repoDir: options.projectDir } : {}),
    repoFiles: options.files,
    users: { 'demo-reviewer': 'write' },
    workflow: { file: options.workflowFile },
    maxJobs: options.maxJobs ?? 20,
    jobTimeoutMs: options.jobTimeoutMs ?? 5 * 60_000,
    // The demo shows the loop's draft pull request: the repository allows Actions to open it.
    actionsCanCreatePullRequests: true,
    ...(options.extraEnv ? { extraEnv: options.extraEnv } : {}),
    root: join(options.out, 'sandbox'),
    keep: options.keepSandbox ?? false,
  })
  const summaryFiles: string[] = []
  sandbox.engine.onJobFinished((job) => {
    const file = join(summaries, `${String(job.runNumber).padStart(2, '0')}-run-${job.runId}.md`)
    writeFileSync(file, job.summary)
    summaryFiles.push(file)
    const status = job.outputs.status ? ` · status ${job.outputs.status}` : ''
    print(
      `\n━━ job ${job.runNumber} · run ${job.runId} · ${job.event} · ${job.conclusion}${status} · ${job.durationMs ?? 0} ms`,
    )
    if (job.reason) print(`   ${job.reason}`)
    print(job.summary.trim() || '(no job summary)')
    for (const annotation of job.annotations) {
      const where = annotation.file ? ` ${annotation.file}${annotation.line ? `:${annotation.line}` : ''}` : ''
      print(`   ${annotation.level}${where}: ${annotation.message}`)
    }
    if (job.conclusion === 'failure') print(job.stderr.trim().split('\n').slice(-15).join('\n'))
  })
  try {
    print(`sandbox: API ${sandbox.api.url} · results ${sandbox.results.url} · remote ${sandbox.git.cloneUrl}`)
    const { runId } = await sandbox.dispatch(options.inputs)
    print(`dispatched ${options.workflowFile} with ${JSON.stringify(options.inputs)}: run ${runId}`)
    const jobs = [...(await sandbox.waitForIdle(options.timeoutMs ?? 30 * 60_000))]
    const loopComments = sandbox.api.model.comments.filter((c) => c.user.type === 'Bot')
    const last = loopComments.at(-1)
    let finalCommentFile: string | undefined
    if (last) {
      finalCommentFile = join(options.out, 'final-comment.md')
      writeFileSync(finalCommentFile, last.body)
    }
    const problems = [...sandbox.api.violations, ...sandbox.engine.problems]
    const finalStatus = jobs.at(-1)?.outputs.status
    const ok =
      problems.length === 0 &&
      jobs.length > 0 &&
      jobs.every((j) => j.conclusion === 'success' || j.conclusion === 'cancelled') &&
      (finalStatus === undefined || finalStatus === 'complete')
    // What counts against the repository's 1,000 requests an hour for the GITHUB_TOKEN.
    const jobTokenRequests = sandbox.api.exchanges.filter((exchange) => exchange.tokenKind === 'installation').length
    return { jobs, summaryFiles, finalCommentFile, problems, finalStatus, jobTokenRequests, ok }
  } finally {
    await sandbox.stop()
  }
}

async function main(): Promise<void> {
  const root = resolve(import.meta.dirname, '..')
  const bundle = join(root, 'dist', 'index.js')
  if (!existsSync(bundle)) {
    console.error('dist/index.js is missing: run `npm run bundle` first.')
    process.exit(1)
  }
  const out = mkdtempSync(join(tmpdir(), 'loop-demo-github-'))
  const result = await runGitHubDemo({
    actionDir: root,
    projectDir: join(root, 'examples', 'demo'),
    files: { '.github/workflows/loop.yml': DEMO_WORKFLOW },
    workflowFile: 'loop.yml',
    inputs: { 'loop-id': 'demo' },
    out,
    extraEnv: {
      // The demo's checks use the tools this package installed (tsc, biome); the agent is scripted.
      PATH: `${join(root, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`,
      LOOP_DEMO_AGENT: join(root, 'examples', 'agent', 'agent.mjs'),
    },
    keepSandbox: process.argv.includes('--keep-sandbox'),
  })
  console.log(`\n${result.jobs.length} jobs · final status: ${result.finalStatus ?? 'unknown'}`)
  console.log(`rendered job summaries: ${join(out, 'summaries')}`)
  console.log(`final comment: ${result.finalCommentFile ?? '(the loop left no comment)'}`)
  if (process.argv.includes('--keep-sandbox')) console.log(`sandbox (workspaces, remote): ${join(out, 'sandbox')}`)
  for (const problem of result.problems) console.log(`problem: ${problem}`)
  process.exit(result.ok ? 0 : 1)
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.stack : String(error))
    process.exit(1)
  })
}
