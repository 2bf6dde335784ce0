// Authorization (issue 7, item 6): who may command a loop, which triggers are refused, and proof that
// event text (issue titles, comments, branch names) never reaches a shell.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { interpretEvent } from '../../src/domain/action-event.js'
import { authorizeActor, isUntrustedTrigger, parseCommentCommand } from '../../src/domain/commands.js'
import { cliEnv, createQuickLoop, ensureCliBundle, runCliSync } from './harness.js'
import { recordProof } from './record-proof.js'

const CONTROLLER = 'github-actions[bot]'
const ACTORS: { actor: string; actorType: string; permission: string; allowed: boolean; reason: RegExp }[] = [
  { actor: 'alice', actorType: 'User', permission: 'admin', allowed: true, reason: /admin/ },
  { actor: 'bob', actorType: 'User', permission: 'maintain', allowed: true, reason: /maintain/ },
  { actor: 'carol', actorType: 'User', permission: 'write', allowed: true, reason: /write/ },
  {
    actor: 'dave',
    actorType: 'User',
    permission: 'triage',
    allowed: false,
    reason: /triage.*write, maintain or admin/,
  },
  { actor: 'erin', actorType: 'User', permission: 'read', allowed: false, reason: /read.*write, maintain or admin/ },
  { actor: 'frank', actorType: 'User', permission: 'none', allowed: false, reason: /none/ },
  { actor: 'grace', actorType: 'User', permission: '', allowed: false, reason: /no permission/ },
  { actor: 'renovate[bot]', actorType: 'Bot', permission: 'write', allowed: false, reason: /bot/ },
  { actor: 'sneaky[bot]', actorType: 'User', permission: 'admin', allowed: false, reason: /bot/ },
  { actor: 'some-app', actorType: 'Bot', permission: 'admin', allowed: false, reason: /bot/ },
  { actor: CONTROLLER, actorType: 'Bot', permission: 'write', allowed: false, reason: /controller itself/ },
  { actor: 'GitHub-Actions[bot]', actorType: 'Bot', permission: 'admin', allowed: false, reason: /controller itself/ },
]

const SHELL_TEXT = [
  '$(touch PWNED-subst)',
  '`touch PWNED-backtick`',
  '; touch PWNED-semicolon',
  '&& touch PWNED-and',
  '| touch PWNED-pipe',
  "'; touch PWNED-quote; '",
  '"$(touch PWNED-dq)"',
  '\n touch PWNED-newline',
]

/** What the tests below proved, counted as each passes. */
const proved = {
  actors: { checked: 0, allowed: 0, refused: 0 },
  triggers: { checked: 0, refused: 0 },
  shellPayloads: { inComments: 0, throughTheCli: 0, markerFilesCreated: 0 },
}
recordProof('authorization', () => proved)

describe('authorization', () => {
  it.each(ACTORS)('$actor ($actorType, $permission): allowed=$allowed with a logged reason', (row) => {
    const result = authorizeActor({ ...row, controllerLogin: CONTROLLER })
    expect(result.allowed).toBe(row.allowed)
    expect(result.reason).toMatch(row.reason)
    expect(result.reason).toContain(`@${row.actor}`)
    proved.actors.checked++
    proved.actors[row.allowed ? 'allowed' : 'refused']++
  })

  const fork = { repository: { full_name: 'o/r' }, pull_request: { head: { repo: { full_name: 'mallory/r' } } } }
  const same = { repository: { full_name: 'o/r' }, pull_request: { head: { repo: { full_name: 'o/r' } } } }
  const run = (head: unknown) => ({ repository: { full_name: 'o/r' }, workflow_run: { head_repository: head } })
  it.each([
    ['pull_request_target', fork, true],
    ['pull_request_target', same, false],
    ['pull_request_target', { repository: { full_name: 'o/r' }, pull_request: { head: { repo: null } } }, true],
    ['workflow_run', run({ full_name: 'mallory/r' }), true],
    ['workflow_run', run({ full_name: 'O/R' }), false],
    ['workflow_run', run(null), true],
    ['pull_request', fork, false],
    ['issue_comment', {}, false],
  ] as const)('%s on %j: refused=%s unless opted in', (event, payload, refused) => {
    const assessment = isUntrustedTrigger(event, payload as Record<string, unknown>, false)
    expect(assessment.refuse).toBe(refused)
    if (refused) expect(assessment.reason).toMatch(/allow-untrusted/)
    expect(isUntrustedTrigger(event, payload as Record<string, unknown>, true).refuse).toBe(false)
    proved.triggers.checked++
    if (refused) proved.triggers.refused++
  })

  it.each(SHELL_TEXT)('a comment with shell text %j is a problem or plain data, never a command to run', (text) => {
    for (const body of [`/loop approve ${text}`, `/loop skip lint --reason ${text}`, `/loop ${text}`]) {
      const parsed = parseCommentCommand(body)
      if (parsed && 'command' in parsed) {
        // Only a skip reason may carry the text, as data.
        expect(parsed.command.kind).toBe('skip')
      }
      const intent = interpretEvent('issue_comment', {
        action: 'created',
        comment: { body, user: { login: 'mallory', type: 'User' } },
      })
      expect(intent.kind).not.toBe('run')
    }
    proved.shellPayloads.inComments++
  })

  it('branch names, titles and comments with shell text never reach a shell: they arrive as data only', () => {
    ensureCliBundle()
    // The work command records its argv and the environment it was given.
    const dir = createQuickLoop({
      defects: 1,
      work: "node -e \"require('fs').writeFileSync('argv.json', JSON.stringify({argv: process.argv, env: process.env}))\" && node agent.mjs",
    })
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text, deliberately (not a JS template)
    const branch = 'loop/$(touch${IFS}PWNED-branch)`touch${IFS}PWNED-branch2`;x'
    execFileSync('git', ['checkout', '-q', '-b', branch], { cwd: dir })
    const title = SHELL_TEXT.join(' ')
    const result = runCliSync(dir, ['run'], cliEnv({ LOOP_ISSUE_TITLE: title, LOOP_COMMENT: title }))
    expect(result.status, result.stderr).toBe(0)
    const recorded = JSON.parse(readFileSync(join(dir, 'argv.json'), 'utf8')) as {
      argv: string[]
      env: Record<string, string>
    }
    // The text is in the environment, byte for byte, and nowhere in argv.
    expect(recorded.env.LOOP_ISSUE_TITLE).toBe(title)
    expect(recorded.argv.join(' ')).not.toContain('PWNED')
    // The loop id derived from the branch is sanitised.
    expect(recorded.env.LOOP_ID).toMatch(/^[A-Za-z0-9._-]+$/)
    const markers = ['PWNED-branch', 'PWNED-branch2', ...SHELL_TEXT.map((t) => /PWNED-[a-z]+/.exec(t)?.[0] ?? '')]
    const created = markers.filter((marker) => existsSync(join(dir, marker)))
    proved.shellPayloads.markerFilesCreated = created.length
    expect(created).toEqual([])
    proved.shellPayloads.throughTheCli = SHELL_TEXT.length
  }, 60_000)
})
