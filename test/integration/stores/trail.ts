/** A realistic audit trail for the store tests that measure growth: what one iteration adds to it. */
import { appendFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'

const WORDS =
  'the check failed because a test expected two but got three so the agent changed the parser and ran lint again with build type errors fixed in module config while stage verify passed after retry'.split(
    ' ',
  )

/** Deterministic prose of about `bytes` bytes: compresses like a real record, never repeats whole lines. */
function prose(seed: number, bytes: number): string {
  let state = seed * 7919 + 17
  const out: string[] = []
  let length = 0
  while (length < bytes) {
    state = (state * 1103515245 + 12345) % 2147483648
    const word = `${WORDS[state % WORDS.length]}${state % 13 === 0 ? ` ${state % 1000}` : ''}${state % 11 === 0 ? '.\n' : ' '}`
    out.push(word)
    length += word.length
  }
  return out.join('')
}

/** What one iteration adds to a loop's trail: a record of ~3 KB, a check log of ~2 KB, four journey events. */
export async function addIteration(dir: string, n: number): Promise<void> {
  await mkdir(join(dir, 'iterations'), { recursive: true })
  await mkdir(join(dir, 'logs', String(n)), { recursive: true })
  await writeFile(join(dir, 'iterations', `${n}.md`), `# Iteration ${n}\n\n${prose(n, 3000)}\n`)
  await writeFile(join(dir, 'logs', String(n), 'test.log'), prose(n + 1000, 2000))
  const events = ['iteration-started', 'check-ran', 'check-ran', 'iteration-ended'].map((type, index) =>
    JSON.stringify({
      type,
      iteration: n,
      at: new Date(Date.UTC(2025, 0, 1, 0, n, index)).toISOString(),
      detail: prose(n * 10 + index, 120),
    }),
  )
  await appendFile(join(dir, 'journey-log.jsonl'), `${events.join('\n')}\n`)
}

/** Every file of a trail folder, by relative path. */
export async function readTrail(dir: string): Promise<Record<string, string>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])
  const trail: Record<string, string> = {}
  for (const entry of entries) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath, entry.name)
    trail[relative(dir, path)] = await readFile(path, 'utf8')
  }
  return trail
}
