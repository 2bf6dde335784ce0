/**
 * Runs every real project under the controller in the tree and under the bundle from before issue 17,
 * and turns the outcomes into the table `npm run test:real-projects` prints and the JSON it writes
 * (bench/results/real-projects.json). Shared by the runner and the bench figure.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  beforeController,
  type Controller,
  currentController,
  type LoopOutcome,
  prepareToolchain,
  ROOT,
  runLoop,
} from './harness.js'
import { PROJECTS, type RealProject } from './projects.js'

export interface ProjectReport {
  project: string
  ecosystem: string
  upstream: string
  commit: string
  license: string
  skipped?: string
  current?: LoopOutcome
  before?: LoopOutcome | { skipped: string }
  /** before ÷ current: above 1 means the tree needs fewer (or less) than the old controller. */
  ratio?: { iterations: number | null; agentCalls: number | null; wallTime: number | null }
}

export async function runAll(
  options: { only?: string[]; compare?: boolean; log?: (line: string) => void } = {},
): Promise<ProjectReport[]> {
  const log = options.log ?? (() => {})
  const projects = PROJECTS.filter((p) => !options.only?.length || options.only.includes(p.name))
  const current = currentController()
  const before: Controller | string = options.compare === false ? 'not asked' : beforeController()
  const reports: ProjectReport[] = []
  for (const project of projects) reports.push(await runProject(project, current, before, log))
  return reports
}

async function runProject(
  project: RealProject,
  current: Controller,
  before: Controller | string,
  log: (line: string) => void,
): Promise<ProjectReport> {
  const report: ProjectReport = {
    project: project.name,
    ecosystem: project.ecosystem,
    upstream: project.upstream,
    commit: project.commit,
    license: project.license,
  }
  const toolchain = prepareToolchain(project)
  if (typeof toolchain === 'string') {
    log(`${project.name}: skipped: ${toolchain}`)
    return { ...report, skipped: toolchain }
  }
  log(`${project.name}: ${current.name}`)
  report.current = await runLoop(project, current, toolchain, { log: (line) => log(`  ${line}`) })
  if (typeof before === 'string') {
    report.before = { skipped: before }
  } else {
    log(`${project.name}: ${before.name}`)
    const old = await runLoop(project, before, toolchain, { log: (line) => log(`  ${line}`) })
    report.before = old
    const ratio = (a: number, b: number) => (b > 0 ? Number((a / b).toFixed(2)) : null)
    report.ratio = {
      iterations: ratio(old.iterations, report.current.iterations),
      agentCalls: ratio(old.agentCalls, report.current.agentCalls),
      wallTime: ratio(old.wallMs, report.current.wallMs),
    }
  }
  return report
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

function row(outcome: LoopOutcome): string[] {
  const lint = outcome.defects.find((d) => d.kind === 'lint')
  const fixed = outcome.defects.filter((d) => d.fixedBy !== 'not fixed').length
  return [
    outcome.controller,
    `${outcome.status.toUpperCase()}`,
    `${outcome.iterations}/${outcome.maxIterations}`,
    String(outcome.agentCalls),
    seconds(outcome.wallMs),
    seconds(outcome.checksMs),
    seconds(outcome.workMs),
    seconds(outcome.controllerMs),
    `${fixed}/${outcome.defects.length}`,
    lint?.fixedBy ?? '',
  ]
}

/** The table: one line per project and controller, then the ratios. */
export function renderReport(reports: readonly ProjectReport[]): string {
  const header = [
    'project',
    'controller',
    'status',
    'iterations',
    'agent calls',
    'wall',
    'in checks',
    'in agent',
    'controller and rest',
    'defects fixed',
    'lint/format defect fixed by',
  ]
  const lines = [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`]
  const notes: string[] = []
  for (const report of reports) {
    const name = `${report.project} (${report.ecosystem})`
    if (report.skipped) {
      lines.push(`| ${name} | skipped: ${report.skipped} |`)
      continue
    }
    if (report.current) lines.push(`| ${name} | ${row(report.current).join(' | ')} |`)
    if (report.before && 'status' in report.before) lines.push(`| ${name} | ${row(report.before).join(' | ')} |`)
    else if (report.before) notes.push(`${report.project}: no comparison: ${report.before.skipped}`)
    if (report.ratio)
      notes.push(
        `${report.project}: before ÷ tree: iterations ${report.ratio.iterations ?? 'n/a'}, agent calls ${report.ratio.agentCalls ?? 'n/a'}, wall time ${report.ratio.wallTime ?? 'n/a'}`,
      )
    if (report.current && report.current.status !== 'complete')
      notes.push(
        `${report.project}: the tree's controller stopped ${report.current.status}: ${report.current.statusReason}`,
      )
  }
  return [...lines, '', ...notes.map((note) => `- ${note}`)].join('\n')
}

export function writeResults(reports: readonly ProjectReport[], machine: string): string {
  const dir = join(ROOT, 'bench', 'results')
  mkdirSync(dir, { recursive: true })
  const path = join(dir, 'real-projects.json')
  const slim = reports.map((report) => ({
    ...report,
    current: report.current && slimOutcome(report.current),
    before: report.before && 'status' in report.before ? slimOutcome(report.before) : report.before,
  }))
  writeFileSync(path, `${JSON.stringify({ date: new Date().toISOString(), machine, projects: slim }, null, 2)}\n`)
  return path
}

/** The outcome without the temporary repository's path; the oracle's calls kept (what it was shown). */
function slimOutcome(outcome: LoopOutcome): Omit<LoopOutcome, 'repo'> {
  const { repo: _repo, ...rest } = outcome
  return {
    ...rest,
    wallMs: Math.round(rest.wallMs),
    checksMs: Math.round(rest.checksMs),
    workMs: Math.round(rest.workMs),
    controllerMs: Math.round(rest.controllerMs),
  }
}
