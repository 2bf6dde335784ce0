// The pinned dashboard issue as the scenarios read it: the open ones, the rows of its table, and a
// person's tick on one of its boxes.
import type { Sandbox } from '../sandbox/sandbox.js'

/** The open dashboards, lowest number first (a race may open two for a moment; the lower is kept). */
export function dashboards(sandbox: Sandbox) {
  return [...sandbox.api.model.issues.values()]
    .filter((issue) => issue.state === 'open' && issue.labels.some((label) => label.name === 'loop/dashboard'))
    .sort((a, b) => a.number - b.number)
}

/** The body of the one open dashboard; throws when there is none or more than one. */
export function dashboardBody(sandbox: Sandbox): string {
  const open = dashboards(sandbox)
  if (open.length !== 1) throw new Error(`expected one open dashboard, found ${open.length}`)
  return open[0]?.body ?? ''
}

/** The dashboard's rows: loop id → its cells (loop, stage, status, …, queue), without bold marks. */
export function dashboardRows(body: string): Map<string, string[]> {
  const rows = new Map<string, string[]>()
  for (const line of body.split('\n').filter((candidate) => candidate.startsWith('| `'))) {
    const cells = line.split(' | ').map((cell) => cell.replace(/^\| |\*\*| \|$/g, ''))
    rows.set(cells[0]?.replaceAll('`', '') ?? '', cells)
  }
  return rows
}

/** The dashboard's row of `loopId`, split into its cells. */
export function dashboardRow(body: string, loopId: string): string[] | undefined {
  return dashboardRows(body).get(loopId)
}

/** The body with the box whose marker names `what` (e.g. `resume:stuck`) ticked, as GitHub's task list does. */
export function ticked(body: string, what: string): string {
  const marker = `- [ ] <!-- loop-dashboard:${what} -->`
  if (!body.includes(marker)) throw new Error(`the dashboard offers no box ${what}:\n${body}`)
  return body.replace(marker, marker.replace('[ ]', '[x]'))
}
