// The sandbox self-tests' stand-in for the action bundle: reads inputs as @actions/core does, writes
// an output (one plain, one heredoc), state, a summary and an annotation, checks that its workspace is
// fresh, and dispatches the next job of the chain through the REST API with fetch.
import { randomUUID } from 'node:crypto'
import { appendFileSync, existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** @actions/core's getInput: INPUT_ + name upper-cased with spaces as underscores, trimmed. */
const getInput = (name) => (process.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim()

/** @actions/core's file-command format, with a heredoc delimiter that cannot occur in the value. */
function fileCommand(variable, name, value) {
  const delimiter = `ghadelimiter_${randomUUID()}`
  appendFileSync(process.env[variable], `${name}<<${delimiter}\n${value}\n${delimiter}\n`)
}

const step = Number(getInput('step'))
const chainLength = Number(getInput('chain length'))
const delayMs = Number(getInput('delay-ms'))
const token = getInput('github-token')
if (!Number.isInteger(step) || step < 1) {
  console.log(`::error::Input 'step' must be a whole number from 1; got '${getInput('step')}'.`)
  process.exit(1)
}

const workspace = process.env.GITHUB_WORKSPACE
const marker = join(workspace, 'left-by-a-previous-job.txt')
const fresh = !existsSync(marker)
writeFileSync(marker, `run ${process.env.GITHUB_RUN_ID}\n`)

const seen = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => /^(GITHUB_|RUNNER_|INPUT_|ACTIONS_|CI$|HOME$)/.test(name)),
)
appendFileSync(process.env.GITHUB_OUTPUT, `step=${step}\nfresh=${fresh}\n`)
fileCommand('GITHUB_OUTPUT', 'seen-env', JSON.stringify(seen))
fileCommand('GITHUB_OUTPUT', 'notes', `line one of ${step}\nline two`)
fileCommand('GITHUB_STATE', 'started-step', String(step))
appendFileSync(
  process.env.GITHUB_STEP_SUMMARY,
  `## step ${step} of ${chainLength}\n\nrun ${process.env.GITHUB_RUN_ID}\n`,
)
console.log(`::add-mask::secret-of-step-${step}`)
console.log(`the secret is secret-of-step-${step}`)
console.log(`::warning file=src/step.ts,line=${step},col=2,title=step%3A ${step}::step ${step}%0Asecond line`)

if (getInput('store') === 'true') {
  // The same clients the loop's artifact and cache stores use, against the sandbox's results service.
  const { DefaultArtifactClient } = await import('@actions/artifact')
  const cache = await import('@actions/cache')
  const file = join(process.env.RUNNER_TEMP, `state-${step}.json`)
  writeFileSync(file, JSON.stringify({ step }))
  const uploaded = await new DefaultArtifactClient().uploadArtifact(`state-${step}`, [file], process.env.RUNNER_TEMP)
  const cacheId = await cache.saveCache([file], `loop-state-${step}`)
  appendFileSync(process.env.GITHUB_OUTPUT, `artifact-id=${uploaded.id}\ncache-id=${cacheId}\n`)
}

if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs))

/** Calls the REST API with the job's token; fails the step on an unexpected status. */
async function api(method, path, body, expected) {
  const response = await fetch(`${process.env.GITHUB_API_URL}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'application/vnd.github+json',
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  })
  const text = await response.text()
  if (response.status !== expected) {
    console.log(`::error::${method} ${path} answered ${response.status}: ${text.replace(/\n/g, '%0A')}`)
    process.exit(1)
  }
  return text ? JSON.parse(text) : undefined
}

const repoPath = `/repos/${process.env.GITHUB_REPOSITORY}`
if (step >= chainLength && getInput('final-comment') === 'true') {
  const issue = await api('POST', `${repoPath}/issues`, { title: 'loop report' }, 201)
  await api('POST', `${repoPath}/issues/${issue.number}/comments`, { body: `final: ${step} steps` }, 201)
}

if (step < chainLength) {
  const [owner, repo] = process.env.GITHUB_REPOSITORY.split('/')
  const workflow = process.env.GITHUB_WORKFLOW_REF.split('@')[0].split('/').pop()
  const response = await fetch(
    `${process.env.GITHUB_API_URL}/repos/${owner}/${repo}/actions/workflows/${workflow}/dispatches`,
    {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/vnd.github+json',
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        ref: process.env.GITHUB_REF_NAME,
        inputs: { step: String(step + 1), 'chain-length': String(chainLength) },
        return_run_details: true,
      }),
    },
  )
  const text = await response.text()
  if (response.status !== 200) {
    console.log(`::error::dispatch of step ${step + 1} answered ${response.status}: ${text.replace(/\n/g, '%0A')}`)
    process.exit(1)
  }
  fileCommand('GITHUB_OUTPUT', 'next-run-id', String(JSON.parse(text).workflow_run_id))
}
