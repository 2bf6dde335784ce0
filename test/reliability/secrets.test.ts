// Secrets (issue 7, item 5): known secrets (an environment value the redactor knows) and token-shaped
// strings are planted in the work command's and the checks' output; then everything the loop wrote
// (.loop/**) and everything the CLI printed is searched for them.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cliEnv, createQuickLoop, ensureCliBundle, runCliSync } from './harness.js'
import { recordProof } from './record-proof.js'

const KNOWN = 'zq-planted-deploy-secret-7f3a9c'
// Built at run time so that no token-shaped literal sits in the repository.
const repeat = (text: string, n: number) => text.repeat(Math.ceil(n / text.length)).slice(0, n)
const PLANTED: Record<string, string> = {
  'known secret (env value)': KNOWN,
  'GitHub classic token': `ghp_${repeat('aB3dE5fG7h', 36)}`,
  'GitHub fine-grained token': `github_pat_${repeat('11ABCDEFG0', 22)}_${repeat('xYz9', 59)}`,
  'npm token': `npm_${repeat('Qw3Er5Ty7U', 36)}`,
  'AWS access key id': `AKIA${repeat('QWERTYUIOP', 16)}`,
  'OpenAI project key': `sk-proj-${repeat('Ab1Cd2Ef3G', 48)}`,
  'Anthropic key': `sk-ant-api03-${repeat('Zx9Yw8Vu7T', 60)}`,
  'PEM private key': `-----BEGIN RSA PRIVATE KEY-----\n${repeat('MIIEowIBAAKCAQEA', 64)}\n-----END RSA PRIVATE KEY-----`,
}
/** A distinctive slice of each secret to search for (a PEM body line rather than its header). */
const needle = (value: string) => (value.startsWith('-----BEGIN') ? (value.split('\n')[1] as string) : value)

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })
}

const figures: Record<string, unknown> = {}
recordProof('secrets', () => figures)

describe('secrets planted in command output', () => {
  it('are found nowhere in what the loop wrote or printed, outside the raw run logs', () => {
    ensureCliBundle()
    const dir = createQuickLoop({
      defects: 2,
      work: 'cat planted.txt && node agent.mjs',
      checks: `checks:
  - name: unit
    kind: test
    run: cat planted.txt; node check.mjs
  - name: lint
    kind: lint
    run: node lint.mjs
`,
    })
    writeFileSync(join(dir, 'planted.txt'), `${Object.values(PLANTED).join('\n')}\n`)
    const run = runCliSync(dir, ['run', '--loop-id', 'secrets'], cliEnv({ MY_DEPLOY_TOKEN: KNOWN }))
    expect(run.status, run.stderr).toBe(0)
    const loopDir = join(dir, '.loop', 'secrets')
    const trail: Record<string, string> = { 'CLI stdout': run.stdout, 'CLI stderr': run.stderr }
    for (const file of filesUnder(loopDir)) trail[relative(loopDir, file)] = readFileSync(file, 'latin1')
    const leaks: string[] = []
    const rawLogLeaks: string[] = []
    for (const [name, value] of Object.entries(PLANTED)) {
      for (const [where, text] of Object.entries(trail)) {
        if (!text.includes(needle(value))) continue
        if (where.startsWith('runs/')) rawLogLeaks.push(`${name} in ${where}`)
        else leaks.push(`${name} in ${where}`)
      }
    }
    const planted = Object.keys(PLANTED).length
    const nowhere = Object.keys(PLANTED).filter((name) => !leaks.some((l) => l.startsWith(`${name} in`))).length
    const rawFiles = new Set(rawLogLeaks.map((l) => l.split(' in ')[1])).size
    console.log(
      `secrets: ${planted} planted (1 known env value, ${planted - 1} token shapes) in work and check output, ` +
        `${nowhere}/${planted} found nowhere in state, iterations/, journey log, final.md, dead letters or CLI output; ` +
        `raw command logs under runs/ (not uploaded by the CLI) hold them in ${rawFiles} files`,
    )
    expect(leaks).toEqual([])
    // Not vacuous: the planted output did reach the audit trail, redacted (labels kept, values gone).
    const audit = Object.entries(trail)
      .filter(([where]) => !where.startsWith('runs/'))
      .map(([, text]) => text)
      .join('\n')
    expect(audit).toContain('[redacted:github-token]')
    expect(audit).toContain('[redacted:private-key]')
    Object.assign(figures, { planted: Object.keys(PLANTED), foundNowhere: nowhere, rawLogFiles: rawFiles })
  }, 60_000)
})
