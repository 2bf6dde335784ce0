// .github/workflows/loop.yml as a caller meets it: in fan-out, a bad input fails the plan job, before the
// agent runs, wherever decide would refuse it; each job asks for the least it needs; and each example
// that calls it grants what its jobs ask for, and no more.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

const root = join(import.meta.dirname, '..', '..', '..')
const read = (path: string) => readFileSync(join(root, path), 'utf8')

type Permissions = Record<string, 'read' | 'write'>
interface Step {
  if?: string
  env?: Record<string, string>
  uses?: string
  with?: Record<string, string | boolean>
}
interface Job {
  concurrency?: { group: string; 'cancel-in-progress'?: boolean; queue?: string }
  permissions?: Permissions
  steps?: Step[]
  uses?: string
}
const reusable = parse(read('.github/workflows/loop.yml')) as {
  on: { workflow_call: { inputs: Record<string, { type: string }> } }
  permissions: Permissions
  jobs: Record<string, Job>
}

/** The action step of one of loop.yml's jobs. */
function actionStep(job: string): Step {
  const step = reusable.jobs[job]?.steps?.find((s) => s.uses?.startsWith('loop-controller/loop-controller@'))
  expect(step, job).toBeDefined()
  return step!
}

/** The workflow inputs (`inputs.NAME`) an action step passes on. */
function inputsRead(step: Step): Set<string> {
  const text = Object.values(step.with ?? {}).join('\n')
  return new Set([...text.matchAll(/\binputs\.([a-z][a-z-]*)/g)].map((match) => match[1]!))
}

describe('loop.yml in fan-out', () => {
  it("plan's action reads every input decide's reads, so a bad one fails plan before any agent call", () => {
    const plan = inputsRead(actionStep('plan'))
    // GitHub refuses a run whose caller gives a boolean input anything but true or false, at its start.
    const typed = (name: string) => reusable.on.workflow_call.inputs[name]?.type === 'boolean'
    // `command` plan's `if:` reads instead: plan works only for `run`, decide applies the others.
    const missing = [...inputsRead(actionStep('decide'))].filter(
      (name) => !plan.has(name) && !typed(name) && name !== 'command',
    )
    expect(missing).toEqual([])
    expect(actionStep('plan').if).toContain("inputs.command == 'run'")
  })
})

describe("loop.yml's secrets", () => {
  const AGENT_KEYS = ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY']
  it.each(Object.keys(reusable.jobs))(
    '%s passes secret-names on only where its step has the agent keys it names (else each is warned of as empty)',
    (job) => {
      const step = actionStep(job)
      const named = String(step.with?.secrets ?? '').includes('inputs.secret-names')
      const given = AGENT_KEYS.every((key) => step.env?.[key] === `\${{ secrets.${key} }}`)
      expect({ named, given }).toEqual({ named: given, given })
    },
  )
})

const WRITES: Permissions = { contents: 'write', actions: 'write', 'pull-requests': 'write', issues: 'write' }

describe("loop.yml's permissions", () => {
  it('grants nothing at the top, and each job the least it needs', () => {
    expect(reusable.permissions).toEqual({})
    expect(Object.fromEntries(Object.entries(reusable.jobs).map(([name, job]) => [name, job.permissions]))).toEqual({
      iteration: WRITES,
      plan: { contents: 'read' },
      verify: { contents: 'read', actions: 'read' },
      decide: WRITES,
    })
  })

  const rank = { none: 0, read: 1, write: 2 } as const
  /** The widest level of each scope any of loop.yml's jobs asks for: what a caller must grant. */
  const needed: Permissions = {}
  for (const job of Object.values(reusable.jobs)) {
    for (const [scope, level] of Object.entries(job.permissions ?? {})) {
      if (rank[level] > rank[needed[scope] ?? 'none']) needed[scope] = level
    }
  }

  const callers = readdirSync(join(root, 'examples', 'workflows'))
    .map((file) => ({
      file,
      workflow: parse(read(join('examples', 'workflows', file))) as { jobs: Record<string, Job> },
    }))
    .flatMap(({ file, workflow }) =>
      Object.entries(workflow.jobs)
        .filter(([, job]) => job.uses?.includes('/.github/workflows/loop.yml@'))
        .map(([name, job]) => ({ caller: `${file} job ${name}`, granted: job.permissions })),
    )

  it('is called by the examples', () => {
    expect(callers.map(({ caller }) => caller).sort()).toEqual([
      'loop-fan-out.yml job loop',
      'loop-from-dispatch.yml job loop',
      'loop-from-issue.yml job loop',
    ])
  })

  it.each(callers)("$caller grants the widest of loop.yml's jobs, and no more", ({ granted }) => {
    expect(granted).toEqual(needed)
  })
})

describe('concurrency, as docs/github.md says ("One job per loop at a time", "Limits it meets")', () => {
  const example = (file: string) => parse(read(join('examples', 'workflows', file))) as { jobs: Record<string, Job> }
  it("keeps every waiting job of a loop's group (queue: max), never cancelling the running one", () => {
    const loopGroups = [
      ...Object.values(reusable.jobs).filter((job) => job.concurrency),
      example('loop-step.yml').jobs.loop!,
      example('loop-fan-out.yml').jobs.loop!,
    ]
    expect(loopGroups).toHaveLength(5)
    for (const job of loopGroups) {
      expect(job.concurrency, job.concurrency?.group).toMatchObject({ 'cancel-in-progress': false, queue: 'max' })
    }
  })

  it("keeps one waiting sweep: the sweeper's group has no queue: max", () => {
    expect(example('loop-sweeper.yml').jobs.sweep?.concurrency).toEqual({
      group: 'loop-controller-sweeper',
      'cancel-in-progress': false,
    })
  })
})
