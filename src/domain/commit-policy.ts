/**
 * What the loop may commit. The work command is untrusted code: whatever it leaves in the work tree would
 * otherwise be committed and pushed. Refused: files the repository ignored before the work (the work
 * can rewrite `.gitignore`), files over the size limit, credential-shaped files or contents, and changes
 * under `.github/workflows/` (a `GITHUB_TOKEN` push of those is rejected by GitHub anyway). Pure.
 */
import { matchGlob } from './analysis/guard.js'
import { TOKEN_SHAPES } from './redact.js'

/** GitHub warns at 50 MB and refuses 100 MB; a loop's checkpoint has no business near either. */
export const DEFAULT_MAX_FILE_BYTES = 5 * 1024 * 1024

export const WORKFLOWS_FOLDER = '.github/workflows/'

const IGNORED = 'ignored by the repository'

/** One path a checkpoint commit would add, change or delete, as the commit would hold it. */
export interface CommitCandidate {
  path: string
  change: 'added' | 'modified' | 'deleted'
  /** The blob's size; 0 for a deletion. */
  bytes: number
  /** The content as text (null for a deletion, or when over the size limit and so not read). */
  text: string | null
  /** Ignored by the repository's ignore rules as they were before the work (only asked of added paths). */
  ignoredBefore: boolean
}

export interface CommitRules {
  maxFileBytes: number
  /** Globs exempt from the ignore, size and credential rules (not from the workflow rule). */
  allowPaths: readonly string[]
  allowWorkflows: boolean
}

/** A path left out of the checkpoint: why, and what a person can do about it. */
export interface RefusedPath {
  path: string
  reason: string
  remedy: string
}

/** The token shapes a commit is refused for: the ones with few false positives in source code. */
const COMMIT_TOKEN_KINDS = new Set([
  'private-key',
  'github-token',
  'npm-token',
  'aws-access-key-id',
  'aws-secret-access-key',
  'anthropic-key',
  'openai-key',
  'slack-token',
])
const TOKEN_TESTS = TOKEN_SHAPES.filter((shape) => COMMIT_TOKEN_KINDS.has(shape.kind)).map((shape) => ({
  kind: shape.kind,
  regex: new RegExp(shape.regex.source, shape.regex.flags.replace('g', '')),
}))

const TOKEN_NAMES: Record<string, string> = {
  'private-key': 'a private key block',
  'github-token': 'a GitHub token',
  'npm-token': 'an npm token',
  'aws-access-key-id': 'an AWS access key id',
  'aws-secret-access-key': 'an AWS secret access key',
  'anthropic-key': 'an Anthropic API key',
  'openai-key': 'an OpenAI API key',
  'slack-token': 'a Slack token',
}

/** `.env` and `.env.<anything>` but the templates people commit on purpose (still scanned for tokens). */
const ENV_FILE = /^\.env(?:\.(?!(?:example|sample|template|dist|defaults)$)[^/]+)?$/
const SSH_KEY_FILE = /^id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?$/

/** Why `path` with `text` looks like a credential, or null. */
export function credentialShape(path: string, text: string | null): string | null {
  const name = path.slice(path.lastIndexOf('/') + 1)
  if (ENV_FILE.test(name)) return 'an environment file (.env), where credentials live'
  if (SSH_KEY_FILE.test(name)) return 'an SSH private key file name'
  if (text === null) return null
  const found = TOKEN_TESTS.find((test) => test.regex.test(text))
  return found ? `its contents hold ${TOKEN_NAMES[found.kind] ?? found.kind}` : null
}

/** The paths of `candidates` the checkpoint must leave out, each with why and what to do. */
export function refuseFromCommit(candidates: readonly CommitCandidate[], rules: CommitRules): RefusedPath[] {
  const refused: RefusedPath[] = []
  for (const candidate of candidates) {
    const verdict = judge(candidate, rules)
    if (verdict) refused.push({ path: candidate.path, ...verdict })
  }
  // The ignore rules that hid them stay committed as they were, so a later checkpoint judges by them too.
  const unignored = refused.filter((r) => r.reason.startsWith(IGNORED)).map((r) => r.path)
  if (unignored.length === 0) return refused
  for (const candidate of candidates) {
    if (candidate.change === 'added' || !/(?:^|\/)\.gitignore$/.test(candidate.path)) continue
    if (refused.some((r) => r.path === candidate.path)) continue
    refused.push({
      path: candidate.path,
      reason: `this change to the ignore rules would un-ignore ${unignored.slice(0, 3).join(', ')}${unignored.length > 3 ? ` and ${unignored.length - 3} more` : ''}`,
      remedy: 'make the change yourself, or add the paths it un-ignores to commit.allow-paths',
    })
  }
  return refused
}

function judge(candidate: CommitCandidate, rules: CommitRules): Omit<RefusedPath, 'path'> | null {
  const { path } = candidate
  if (path.startsWith(WORKFLOWS_FOLDER) && !rules.allowWorkflows) {
    return {
      reason: `a workflow file ${candidate.change}: a push with GITHUB_TOKEN may not change .github/workflows/`,
      remedy:
        'make the change yourself, or set commit.allow-workflows: true and give the action a push-token with the workflow scope',
    }
  }
  // Removing a file leaks nothing.
  if (candidate.change === 'deleted') return null
  if (rules.allowPaths.some((glob) => matchGlob(glob, path))) return null
  const allowIt = `if it belongs in git, add '${path}' to commit.allow-paths`
  if (candidate.change === 'added' && candidate.ignoredBefore) {
    return {
      reason: `${IGNORED} (.gitignore as before the work, .git/info/exclude)`,
      remedy: `it stays out of git; ${allowIt}`,
    }
  }
  if (candidate.bytes > rules.maxFileBytes) {
    return {
      reason: `${candidate.bytes} bytes, over commit.max-file-bytes (${rules.maxFileBytes})`,
      remedy: `raise commit.max-file-bytes, or ${allowIt}`,
    }
  }
  const credential = credentialShape(path, candidate.text)
  if (credential) {
    return {
      reason: `looks like a credential: ${credential}`,
      remedy: `if it is one, revoke it and keep it out of the work tree; if not, ${allowIt}`,
    }
  }
  return null
}

/** One line a person reads: the path, why it was not committed, and what to do. */
export function describeRefusal(refused: RefusedPath): string {
  return `${refused.path} not committed: ${refused.reason}; ${refused.remedy}`
}
