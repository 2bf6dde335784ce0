/**
 * What the loop commits, and what the verifier-gaming guard sees, against a work command that plants
 * the attack: a real git repository, the CLI's `run`, and a scripted work command that writes the file.
 * Each asserts what the attacker got: the file in no commit, or the guard's finding.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cli, git, tempRepo } from '../integration/cli/helpers.js'

const stateOf = (repo: string, id: string) =>
  JSON.parse(readFileSync(join(repo, '.loop', id, 'loop-state.json'), 'utf8'))

const journeyOf = (repo: string, id: string): string =>
  readFileSync(join(repo, '.loop', id, 'journey-log.jsonl'), 'utf8')

/** A config whose one check passes, so the loop completes after the work and commits its checkpoint. */
function config(work: string, extra = ''): string {
  return `goal: Plant something.
max-iterations: 2
work:
  run: ${JSON.stringify(work)}
checks:
  - name: ok
    kind: custom
    run: "true"
${extra}`
}

/** Every path any commit of the repository added or changed. */
function committedPaths(repo: string): string[] {
  return git(repo, 'log', '--all', '--format=', '--name-only').split('\n').filter(Boolean)
}

/** The text of every blob any commit holds, so a token copied under another name is found too. */
function everyCommittedText(repo: string): string {
  const objects = git(repo, 'rev-list', '--all', '--objects')
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '')
    .filter(Boolean)
  return objects
    .filter((object) => git(repo, 'cat-file', '-t', object).trim() === 'blob')
    .map((object) => git(repo, 'cat-file', 'blob', object))
    .join('\n')
}

async function runLoop(repo: string, id: string) {
  const run = await cli(repo, 'run', '--loop-id', id)
  return { ...run, output: run.stdout + run.stderr }
}

// The work commands build the secret from parts, so the committed config does not hold it whole.
const TOKEN_BODY = `${'A1b2C3d4E5'.repeat(3)}abcdef`
const GITHUB_TOKEN = `ghp_${TOKEN_BODY}`
const KEY_HEADER = '-----BEGIN OPENSSH PRIVATE KEY-----'
const WRITE_KEY = `printf '%s%s\\n%s\\n' '-----BEGIN OPENSSH' ' PRIVATE KEY-----' b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ`

describe('what the loop commits', () => {
  it('an ignored file the work un-ignores by rewriting .gitignore is not committed', async () => {
    const repo = tempRepo({
      files: {
        '.github/loop.yml': config('printf "" > .gitignore; echo done > feature.txt'),
        '.gitignore': 'private/\n',
      },
    })
    await import('node:fs').then(({ mkdirSync, writeFileSync }) => {
      mkdirSync(join(repo, 'private'))
      writeFileSync(join(repo, 'private', 'notes.txt'), 'the person’s own notes\n')
    })
    const run = await runLoop(repo, 'unignore')
    expect(committedPaths(repo)).toContain('feature.txt')
    expect(committedPaths(repo)).not.toContain('private/notes.txt')
    expect(run.output).toMatch(/private\/notes\.txt.*ignored/)
    // The rule that hid it stays committed, so a later loop, whose work tree starts with the edited
    // .gitignore, still leaves it out.
    expect(git(repo, 'show', 'HEAD:.gitignore')).toContain('private/')
    await runLoop(repo, 'unignore-again')
    expect(committedPaths(repo)).not.toContain('private/notes.txt')
  }, 60_000)

  it('a file over the size limit is not committed', async () => {
    const repo = tempRepo({
      files: {
        '.github/loop.yml': config('head -c 6000000 /dev/zero | tr "\\0" a > huge.txt; echo done > feature.txt'),
      },
    })
    const run = await runLoop(repo, 'huge')
    expect(committedPaths(repo)).toContain('feature.txt')
    expect(committedPaths(repo)).not.toContain('huge.txt')
    expect(run.output).toMatch(/huge\.txt.*max-file-bytes/)
  }, 60_000)

  it('a .env file is not committed', async () => {
    const repo = tempRepo({
      files: { '.github/loop.yml': config('echo DB_PASSWORD=hun""ter2 > .env; echo done > feature.txt') },
    })
    const run = await runLoop(repo, 'dotenv')
    expect(committedPaths(repo)).toContain('feature.txt')
    expect(committedPaths(repo)).not.toContain('.env')
    expect(everyCommittedText(repo)).not.toContain('hunter2')
    expect(run.output).toMatch(/\.env.*credential/)
  }, 60_000)

  it('a private key is not committed, whatever its name', async () => {
    const work = `${WRITE_KEY} > deploy.pem; cp deploy.pem notes.txt; echo done > feature.txt`
    const repo = tempRepo({ files: { '.github/loop.yml': config(work) } })
    await runLoop(repo, 'key')
    expect(committedPaths(repo)).toContain('feature.txt')
    expect(committedPaths(repo)).not.toContain('deploy.pem')
    expect(everyCommittedText(repo)).not.toContain(KEY_HEADER)
  }, 60_000)

  it('a token written into source is not committed', async () => {
    const work = `printf "export const token = '%s%s'\\n" ghp_ ${TOKEN_BODY} > src.js; echo done > feature.txt`
    const repo = tempRepo({ files: { '.github/loop.yml': config(work) } })
    const run = await runLoop(repo, 'token')
    expect(committedPaths(repo)).toContain('feature.txt')
    expect(everyCommittedText(repo)).not.toContain(GITHUB_TOKEN)
    expect(run.output).toMatch(/src\.js.*GitHub token/)
  }, 60_000)

  it('a new workflow is refused with what to do, unless the config allows it', async () => {
    const work =
      'mkdir -p .github/workflows; echo "on: push" > .github/workflows/exfiltrate.yml; echo done > feature.txt'
    const repo = tempRepo({ files: { '.github/loop.yml': config(work, 'protect:\n  on-change: fail\n') } })
    const run = await runLoop(repo, 'workflow')
    expect(committedPaths(repo)).not.toContain('.github/workflows/exfiltrate.yml')
    expect(run.output).toMatch(/\.github\/workflows\/exfiltrate\.yml.*allow-workflows/)

    const allowed = tempRepo({
      files: { '.github/loop.yml': config(work, 'commit:\n  allow-workflows: true\n') },
    })
    await runLoop(allowed, 'workflow')
    expect(committedPaths(allowed)).toContain('.github/workflows/exfiltrate.yml')
  }, 60_000)
})

describe('what the verifier-gaming guard sees', () => {
  it('a package.json test script replaced by exit 0', async () => {
    const pkg = JSON.stringify({ name: 'p', scripts: { test: 'vitest run' } }, null, 2)
    const work = `node -e "const p=require('./package.json');p.scripts.test='exit 0';require('fs').writeFileSync('package.json',JSON.stringify(p))"`
    const repo = tempRepo({ files: { '.github/loop.yml': config(work), 'package.json': pkg } })
    await runLoop(repo, 'scripts')
    expect(stateOf(repo, 'scripts').gates.verifier?.reason).toMatch(/package\.json.*script 'test'/)
  }, 60_000)

  it('an ignored file written on a protected path', async () => {
    const extra = "protect:\n  paths: ['fixtures/**']\n"
    const repo = tempRepo({
      files: {
        '.github/loop.yml': config('echo "all good" > fixtures/expected.snap', extra),
        '.gitignore': '*.snap\n',
        'fixtures/a.txt': 'a\n',
      },
    })
    await runLoop(repo, 'ignored')
    expect(stateOf(repo, 'ignored').gates.verifier?.reason).toMatch(/fixtures\/expected\.snap/)
  }, 60_000)

  it('a binary protected file changed', async () => {
    const extra = "protect:\n  paths: ['fixtures/**']\n"
    const repo = tempRepo({
      files: {
        '.github/loop.yml': config("printf 'new\\000bytes' > fixtures/golden.bin", extra),
        'fixtures/golden.bin': 'old\0bytes',
      },
    })
    await runLoop(repo, 'binary')
    expect(stateOf(repo, 'binary').gates.verifier?.reason).toMatch(/fixtures\/golden\.bin/)
    expect(journeyOf(repo, 'binary')).toMatch(/golden\.bin/)
  }, 60_000)

  it('a large protected file changed', async () => {
    const extra = "protect:\n  paths: ['fixtures/**']\n"
    const work = 'head -c 2000000 /dev/zero | tr "\\0" b > fixtures/golden.txt'
    const repo = tempRepo({ files: { '.github/loop.yml': config(work, extra), 'fixtures/golden.txt': 'expected\n' } })
    await runLoop(repo, 'large')
    expect(stateOf(repo, 'large').gates.verifier?.reason).toMatch(/fixtures\/golden\.txt/)
  }, 60_000)
})
