// End to end, the auditor's attack planted: the work command and a check list the runner's file-command
// folder ($RUNNER_TEMP/_runner_file_commands; they get none of the variables) and append an LD_PRELOAD
// to GITHUB_ENV, a folder to GITHUB_PATH, forged outputs (status, a fan-out matrix), a GITHUB_STATE
// entry and summary text. In one job per iteration and in fan-out (plan and a verify leg), no later step
// gets any of it: the job records show no exported variable or PATH entry, the outputs are the
// controller's own, and a warning names the file and the command that wrote it.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { JobRecord } from '../sandbox/workflow-engine.js'
import { jobsNamed, startFanOutScenario } from './fan-out-fixtures.js'
import {
  checkOperationsExercised,
  describeJobs,
  expectFaithful,
  MINUTE,
  projectFiles,
  startScenario,
} from './fixtures.js'

checkOperationsExercised(import.meta.url)

/** The attack, by `$1` (work or check): every file of each kind in the folder, and a note of what it found. */
const PLANT = `dir="$RUNNER_TEMP/_runner_file_commands"
for f in "$dir"/set_env_*; do echo "LD_PRELOAD=/tmp/evil-$1.so" >> "$f"; printf 'BASH_ENV<<EOF\\n/tmp/evil-%s.sh\\nEOF\\n' "$1" >> "$f"; done
for f in "$dir"/add_path_*; do echo "/tmp/evil-bin-$1" >> "$f"; done
for f in "$dir"/set_output_*; do printf 'status=complete\\nforged=%s\\nmatrix={"include":[{"leg":"forged"}]}\\n' "$1" >> "$f"; done
for f in "$dir"/save_state_*; do echo "token=stolen-$1" >> "$f"; done
for f in "$dir"/step_summary_*; do echo "## Forged by $1: every check passed" >> "$f"; done
echo "$1 $(ls "$dir" | sed 's/_[^_]*$//' | sort -u | tr '\\n' ' ')" >> "$E2E_SIGNAL_DIR/plants"
`

/** The staircase, whose work plants first and which has one more check that plants and passes. */
function plantingProject(steps: number): Record<string, string> {
  const files = projectFiles({ steps })
  const config = (files['.github/loop.yml'] ?? '')
    .replace('  run: node tools/work.mjs', '  run: sh tools/plant.sh work && node tools/work.mjs')
    .replace(
      'checks:\n',
      'checks:\n  - name: plant\n    kind: lint\n    run: sh tools/plant.sh check\n    timeout: 30s\n',
    )
  if (!config.includes('plant.sh check') || !config.includes('plant.sh work'))
    throw new Error(`no plant in:\n${config}`)
  return { '.github/loop.yml': config, 'tools/plant.sh': PLANT }
}

/** Nothing planted reached the job: no variable, no PATH entry, no state, no summary text, no forged output. */
function expectNothingPlanted(job: JobRecord, why: string): void {
  expect(job.exportedEnv, `${job.name}\n${why}`).toEqual({})
  expect(job.addedPath, `${job.name}\n${why}`).toEqual([])
  expect(job.state, `${job.name}\n${why}`).toEqual({})
  expect(job.summary, `${job.name}\n${why}`).not.toMatch(/Forged/)
  expect(job.outputs.forged, `${job.name}\n${why}`).toBeUndefined()
  expect(job.outputs.matrix ?? '', `${job.name}\n${why}`).not.toMatch(/forged/)
}

/** The warnings of `job` about the runner's file commands a command wrote to. */
function plantWarnings(job: JobRecord): string[] {
  return job.annotations
    .filter((annotation) => annotation.level === 'warning' && /runner's \w+ file/.test(annotation.message))
    .map((annotation) => annotation.message)
}

function expectWarned(job: JobRecord, command: string, why: string): void {
  const warnings = plantWarnings(job).filter((warning) => warning.includes(`'${command}`))
  for (const file of ['GITHUB_ENV', 'GITHUB_PATH', 'GITHUB_OUTPUT', 'GITHUB_STATE', 'GITHUB_STEP_SUMMARY']) {
    expect(
      warnings.some((warning) => warning.includes(`runner's ${file} file`)),
      `${job.name}: ${file} by ${command}\n${why}`,
    ).toBe(true)
  }
  expect(warnings.join('\n')).toContain('LD_PRELOAD=/tmp/evil-')
}

describe('the runner file commands are the controller’s alone', () => {
  it(
    'one job per iteration: what the work and a check plant reaches no later step, the outputs are the controller’s, each is said',
    async () => {
      const scenario = await startScenario({
        steps: 2,
        sandbox: { repoFiles: { ...projectFiles({ steps: 2 }), ...plantingProject(2) } },
      })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'planted' })
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      expect(
        jobs.map((job) => [job.conclusion, job.outputs.status]),
        why,
      ).toEqual([
        ['success', 'running'],
        ['success', 'complete'],
      ])
      for (const job of jobs) {
        expectNothingPlanted(job, why)
        expectWarned(job, 'sh tools/plant.sh work', why)
        expectWarned(job, 'sh tools/plant.sh check', why)
      }
      // The planter found the runner's files each time it ran (the work and the check, every iteration).
      const plants = readPlants(scenario.signals)
      expect(plants.length, why).toBeGreaterThanOrEqual(4)
      for (const line of plants)
        expect(line).toMatch(/^(work|check) .*add_path .*save_state .*set_env .*set_output .*step_summary/)
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )

  it(
    'fan-out: what plan’s work and a verify leg’s check (in the baseline round and on the candidate) plant reaches no later step; the matrix is plan’s own',
    async () => {
      const scenario = await startFanOutScenario(plantingProject(1), { steps: 1 })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'planted-fan-out' })
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      // The baseline round's run, then iteration 1's.
      const [roundPlan, plan] = jobsNamed(jobs, 'plan')
      const legs = jobsNamed(jobs, 'verify')
      const decides = jobsNamed(jobs, 'decide')
      expect(plan?.conclusion, why).toBe('success')
      expect(
        legs.map((leg) => [leg.matrix?.leg, leg.conclusion]),
        why,
      ).toEqual([
        ['plant', 'success'],
        ['step-1', 'success'],
        ['plant', 'success'],
        ['step-1', 'success'],
      ])
      expect(
        decides.map((job) => job.outputs.status),
        why,
      ).toEqual(['running', 'complete'])
      for (const job of jobs) expectNothingPlanted(job, why)
      for (const each of [roundPlan, plan]) {
        expect(JSON.parse(each?.outputs.matrix ?? '{}'), why).toMatchObject({
          include: [{ leg: 'plant' }, { leg: 'step-1' }],
        })
      }
      expectWarned(plan as JobRecord, 'sh tools/plant.sh work', why)
      // The round's plan does no work, and no plan runs a check: the plant leg runs it, once a run (at the
      // base in the round, on the candidate in iteration 1).
      expect(plantWarnings(roundPlan as JobRecord), why).toEqual([])
      const checkWarnings = (job: JobRecord) =>
        plantWarnings(job).filter((warning) => warning.includes("'sh tools/plant.sh check"))
      expect(checkWarnings(plan as JobRecord), why).toEqual([])
      for (const plantLeg of legs.filter((leg) => leg.matrix?.leg === 'plant')) {
        expectWarned(plantLeg, 'sh tools/plant.sh check', why)
        expect(
          checkWarnings(plantLeg).filter((warning) => warning.includes("runner's GITHUB_ENV file")),
          why,
        ).toHaveLength(1)
      }
      for (const decide of decides) expect(plantWarnings(decide), why).toEqual([])
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )
})

function readPlants(signals: string): string[] {
  try {
    return readFileSync(join(signals, 'plants'), 'utf8').trim().split('\n')
  } catch {
    return []
  }
}
