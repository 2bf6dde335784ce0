// Commands run as a project's CI runs them, and the controller's own remedies run where they apply:
// the repository's node_modules/.bin on PATH, a declared fix run whatever the analysis said, and the
// controller's fixes committed apart from the agent's work.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cli, git, tempRepo } from './helpers.js'

const stateOf = (repo: string, id: string) =>
  JSON.parse(readFileSync(join(repo, '.loop', id, 'loop-state.json'), 'utf8'))

/** An executable in the repository's node_modules/.bin (git-ignored, as installed packages are). */
function installBin(repo: string, name: string, script: string): void {
  mkdirSync(join(repo, 'node_modules', '.bin'), { recursive: true })
  writeFileSync(join(repo, 'node_modules', '.bin', name), `#!/bin/sh\n${script}\n`)
  chmodSync(join(repo, 'node_modules', '.bin', name), 0o755)
}

describe('commands run as CI runs them', () => {
  it("finds a check's, a fix's and the install's tools in the repository's node_modules/.bin", async () => {
    const config = `goal: Tools from node_modules/.bin.
max-iterations: 3
install: loop-itest-install
work:
  run: "true"
checks:
  - name: local-tool
    kind: custom
    run: loop-itest-only-in-repo
  - name: deps
    kind: test
    run: sh deps.sh
  - name: format
    kind: format
    run: sh format.sh
    fix: loop-itest-format
`
    const repo = tempRepo({
      files: {
        '.github/loop.yml': config,
        '.gitignore': 'node_modules\ninstalled.txt\nformatted.txt\n',
        'deps.sh': `test -f installed.txt || { echo "Error: Cannot find module 'left-pad'"; exit 1; }`,
        'format.sh': `test -f formatted.txt || { echo '[warn] src/a.js'; echo '[warn] Code style issues found in the above file. Run Prettier with --write to fix.'; exit 1; }`,
      },
    })
    installBin(repo, 'loop-itest-only-in-repo', 'exit 0')
    installBin(repo, 'loop-itest-install', 'touch installed.txt')
    installBin(repo, 'loop-itest-format', 'touch formatted.txt')
    const run = await cli(repo, 'run', '--loop-id', 'bin')
    expect(run.stdout).toContain('COMPLETE')
    expect(run.code).toBe(0)
    expect(stateOf(repo, 'bin').metrics.workCalls).toBe(1)
  }, 60_000)
})

describe('a declared fix runs', () => {
  it('runs a failing check’s fix command even when no pattern recognizes its output (a bare file list, as gofmt -l prints)', async () => {
    // The work does its task and leaves an unformatted file each time, as an agent may.
    const work = "touch feature.txt; echo 'x' > feature.bad"
    const config = `goal: Write the feature.
max-iterations: 4
work:
  run: ${work}
checks:
  - name: feature
    kind: test
    run: test -f feature.txt
  - name: gofmt
    kind: format
    run: sh gofmt.sh
    fix: rm -f feature.bad
`
    const repo = tempRepo({
      files: { '.github/loop.yml': config, 'gofmt.sh': 'ls *.bad 2>/dev/null && exit 1\nexit 0\n' },
    })
    const run = await cli(repo, 'run', '--loop-id', 'gofmt')
    expect(run.stdout).toContain('COMPLETE in 1 iteration')
    expect(run.code).toBe(0)
    const state = stateOf(repo, 'gofmt')
    expect(state.metrics.workCalls).toBe(1)
    expect(readFileSync(join(repo, '.loop', 'gofmt', 'journey-log.jsonl'), 'utf8')).toMatch(
      /gofmt: fixed by its fix command/,
    )
  }, 60_000)
})

/** The agent writes its value with trailing blanks; the formatter (the check's fix) strips them. */
const AUTHORS_CONFIG = `goal: Write the value.
max-iterations: 3
work:
  run: printf 'value = 1   \\n' > code.txt
checks:
  - name: value
    kind: test
    run: grep -q 'value = 1' code.txt
  - name: format
    kind: format
    run: sh fmt-check.sh
    fix: sed -i 's/ *$//' code.txt
`
const AUTHORS_FILES = {
  '.github/loop.yml': AUTHORS_CONFIG,
  'fmt-check.sh': "grep -l ' $' code.txt && exit 1\nexit 0\n",
}

describe('separate commits for separate authors', () => {
  it("commits the agent's work, then the controller's fix on top as its own commit", async () => {
    const repo = tempRepo({
      files: AUTHORS_FILES,
    })
    const run = await cli(repo, 'run', '--loop-id', 'authors')
    expect(run.stdout).toContain('COMPLETE in 1 iteration')
    expect(git(repo, 'log', '--format=%s').trim().split('\n')).toEqual([
      "loop(authors): format: sed -i 's/ *$//' code.txt",
      'loop(authors): iteration 1 IMPLEMENT',
      'start',
    ])
    // The agent's commit holds the agent's work alone; the fix's commit holds only the fix.
    expect(git(repo, 'show', 'HEAD~1:code.txt')).toBe('value = 1   \n')
    expect(git(repo, 'show', 'HEAD:code.txt')).toBe('value = 1\n')
    expect(git(repo, 'diff', '--name-only', 'HEAD~1', 'HEAD').trim()).toBe('code.txt')
    expect(git(repo, 'log', '-1', '--format=%B')).toMatch(/Loop-Id: authors\nLoop-Iteration: 1/)
    expect(git(repo, 'status', '--porcelain').trim()).toBe('')
    const state = stateOf(repo, 'authors')
    expect(state.checkpoints.map((c: { message: string }) => c.message)).toEqual([
      'loop(authors): iteration 1 IMPLEMENT',
      "loop(authors): format: sed -i 's/ *$//' code.txt",
    ])
  }, 60_000)

  it('folds back every commit of an iteration whose state was never saved (a crash after the fix commit)', async () => {
    const repo = tempRepo({ files: AUTHORS_FILES })
    const commit = (subject: string, file: string, text: string) => {
      writeFileSync(join(repo, file), text)
      git(repo, 'add', '-A')
      git(
        repo,
        '-c',
        'user.name=t',
        '-c',
        'user.email=t@example.invalid',
        'commit',
        '-q',
        '-m',
        `${subject}\n\nLoop-Id: authors\nLoop-Iteration: 1`,
      )
    }
    commit('loop(authors): iteration 1 IMPLEMENT', 'code.txt', 'value = 1   \n')
    commit("loop(authors): format: sed -i 's/ *$//' code.txt", 'code.txt', 'value = 1\n')
    const run = await cli(repo, 'run', '--loop-id', 'authors')
    expect(run.stdout).toContain('COMPLETE in 1 iteration')
    expect(git(repo, 'log', '--format=%s').trim().split('\n')).toEqual([
      "loop(authors): format: sed -i 's/ *$//' code.txt",
      'loop(authors): iteration 1 IMPLEMENT',
      'start',
    ])
    // Both are the rerun's own commits: the crashed run's were folded back, not kept under them.
    expect(git(repo, 'log', '-2', '--format=%an').trim().split('\n')).toEqual(['loop-controller', 'loop-controller'])
  }, 60_000)
})

/** A baseline that fails twice: trailing spaces (format, with a fix) and a missing feature (the agent's). */
function baselineWithAFix(): string {
  const config = `goal: Write the feature.
max-iterations: 3
work:
  run: cp "$LOOP_PROMPT_FILE" seen-prompt.md; echo done > feature.txt
checks:
  - name: format
    kind: format
    run: sh fmt-check.sh
    fix: sed -i 's/ *$//' code.txt
  - name: feature
    kind: test
    run: test -f feature.txt || { echo 'not ok 1 - the feature exists'; exit 1; }
`
  return tempRepo({
    files: {
      '.github/loop.yml': config,
      '.gitignore': 'seen-prompt.md\n',
      'fmt-check.sh': "grep -l ' $' code.txt && exit 1\nexit 0\n",
      'code.txt': 'value = 1   \n',
    },
  })
}

describe('a declared fix before the agent', () => {
  it("fixes a baseline failure with its fix command first, keeps it out of the agent's prompt, and commits it apart", async () => {
    const repo = baselineWithAFix()
    const run = await cli(repo, 'run', '--loop-id', 'first')
    expect(run.stdout).toContain('COMPLETE in 1 iteration')
    const prompt = readFileSync(join(repo, 'seen-prompt.md'), 'utf8')
    expect(prompt).toContain('The check `feature` (test) failed')
    expect(prompt).not.toMatch(/`format`|code\.txt/)
    // The fix came first and is its own commit; the agent's commit holds the agent's work alone.
    expect(git(repo, 'log', '--format=%s').trim().split('\n')).toEqual([
      'loop(first): iteration 1 IMPLEMENT',
      "loop(first): format: sed -i 's/ *$//' code.txt",
      'start',
    ])
    expect(git(repo, 'diff', '--name-only', 'HEAD~1', 'HEAD').trim()).toBe('feature.txt')
    expect(git(repo, 'show', 'HEAD~1:code.txt')).toBe('value = 1\n')
    const state = stateOf(repo, 'first')
    expect(state.metrics.autoFixes).toBe(1)
    expect(state.metrics.workCalls).toBe(1)
  }, 60_000)

  it('says in the baseline iteration what failed, what the agent was told, and lists the auto-fix once', async () => {
    const repo = baselineWithAFix()
    const run = await cli(repo, 'run', '--loop-id', 'first')
    expect(run.stdout).toContain('COMPLETE in 1 iteration')
    const markdown = readFileSync(join(repo, '.loop', 'first', 'iterations', '1.md'), 'utf8')
    expect(markdown).toContain('## Baseline')
    expect(markdown).toMatch(/^- `format` \(format\): /m)
    expect(markdown).toMatch(/^- `feature` \(test\): /m)
    expect(markdown).toContain(
      'The agent is told of: `feature` · the controller fixes itself, with its fix command before the agent: `format`',
    )
    expect(markdown.match(/auto-fixed/g)).toHaveLength(1)
    // The run's lines and `history` tell the auto-fix once, and history names what the agent was told.
    expect(run.stdout.match(/fixed by its fix command|auto-fix/g)).toHaveLength(1)
    const history = (await cli(repo, 'history', '--loop-id', 'first')).stdout
    expect(history.match(/^ +auto-fix /gm)).toHaveLength(1)
    expect(history).toMatch(/baseline: format fail, feature fail · failing: `format` \(format\).*; `feature` \(test\)/)
    expect(history).toContain('The agent is told of: `feature`')
  }, 60_000)
})
