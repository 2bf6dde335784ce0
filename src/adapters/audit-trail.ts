/**
 * The audit trail of one loop, in the loop's folder: `iterations/<n>.md`,
 * `journey-log.jsonl` (one event a line), `final.md`, `dead-letters/<signature>.md` and copies of check
 * logs under `logs/<iteration>/`. Everything written passes through `redact` first.
 */
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { StringDecoder } from 'node:string_decoder'
import type { JourneyEvent } from '../domain/journey.js'
import type { AuditLog } from '../ports/audit.js'
import { writeAtomically } from './file-store.js'

export const JOURNEY_LOG = 'journey-log.jsonl'
/** Staged batches of journey events, one file each, until their save lands. */
export const PENDING_PREFIX = 'journey-pending-'
/** A staged file younger than this may belong to a save still in flight in another process. */
const PENDING_IN_FLIGHT_MS = 60_000

function pendingName(marker: string): string {
  return `${PENDING_PREFIX}${createHash('sha256').update(marker).digest('hex').slice(0, 16)}.json`
}

async function readPending(path: string): Promise<{ marker: string; events: JourneyEvent[] } | null> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as { marker?: unknown; events?: unknown }
    return typeof parsed.marker === 'string' && Array.isArray(parsed.events)
      ? { marker: parsed.marker, events: parsed.events as JourneyEvent[] }
      : null
  } catch {
    return null
  }
}

/**
 * The files ending in `suffix` in every loop's `dead-letters/` under `stateDir` (`.loop/` for the CLI),
 * loops and files in name order.
 */
export async function deadLetterFiles(stateDir: string, suffix: string): Promise<string[]> {
  const files: string[] = []
  for (const loop of (await readdir(stateDir).catch(() => [] as string[])).sort()) {
    const folder = join(stateDir, loop, 'dead-letters')
    const names = await readdir(folder).catch(() => [] as string[])
    files.push(
      ...names
        .filter((name) => name.endsWith(suffix))
        .sort()
        .map((name) => join(folder, name)),
    )
  }
  return files
}

/** Writes and reads one loop's audit trail. */
export class AuditTrail implements AuditLog {
  constructor(
    readonly dir: string,
    private readonly redact: (text: string) => string,
  ) {}

  /**
   * Appends events as JSON lines in one write with O_APPEND, so a crash cannot leave a torn record in
   * the middle of the log; a torn last line from an earlier crash is closed off with a newline first.
   */
  async appendEvents(events: readonly JourneyEvent[]): Promise<void> {
    if (events.length === 0) return
    await mkdir(this.dir, { recursive: true })
    const lines = events.map((event) => `${JSON.stringify(redactDeep(event, this.redact))}\n`).join('')
    const handle = await open(join(this.dir, JOURNEY_LOG), 'a+')
    try {
      const { size } = await handle.stat()
      let prefix = ''
      if (size > 0) {
        const last = Buffer.alloc(1)
        await handle.read(last, 0, 1, size - 1)
        if (last[0] !== 0x0a) prefix = '\n'
      }
      const bytes = Buffer.from(prefix + lines)
      const { bytesWritten } = await handle.write(bytes)
      if (bytesWritten !== bytes.length) {
        throw new Error(`${join(this.dir, JOURNEY_LOG)}: wrote ${bytesWritten} of ${bytes.length} bytes (disk full?)`)
      }
      await handle.datasync()
    } finally {
      await handle.close()
    }
  }

  /**
   * Stages events that belong to a state about to be saved, under `marker` (which names that state).
   * They reach the journey log only with `commitPending` once the save landed, or with
   * `recoverPending` on the next load if the process died in between; a save that lost a race drops
   * them with `discardPending`. So the log never misses an iteration that was saved, and never records
   * one that was not.
   */
  async stagePending(marker: string, events: readonly JourneyEvent[]): Promise<void> {
    if (events.length === 0) return
    const record = { marker, events: events.map((event) => redactDeep(event, this.redact)) }
    await mkdir(this.dir, { recursive: true })
    await writeAtomically(this.dir, pendingName(marker), Buffer.from(`${JSON.stringify(record)}\n`))
  }

  /** Moves the staged events of `marker` into the journey log. */
  async commitPending(marker: string): Promise<void> {
    await this.flushPending(join(this.dir, pendingName(marker)))
  }

  /**
   * Appends a staged batch once: each of its lines carries the batch's marker, so a process killed
   * between the append and the removal of the staged file does not append the batch again when the
   * next run recovers it.
   */
  private async flushPending(path: string): Promise<void> {
    const staged = await readPending(path)
    if (staged && !(await this.logEndsWithBatch(staged.marker))) {
      await this.appendEvents(staged.events.map((event) => ({ ...event, batch: staged.marker })))
    }
    await rm(path, { force: true })
  }

  private async logEndsWithBatch(marker: string): Promise<boolean> {
    const needle = `"batch":${JSON.stringify(marker)}`
    try {
      const handle = await open(join(this.dir, JOURNEY_LOG), 'r')
      try {
        const { size } = await handle.stat()
        const length = Math.min(size, 256 * 1024)
        const tail = Buffer.alloc(length)
        await handle.read(tail, 0, length, size - length)
        return tail.toString('utf8').includes(needle)
      } finally {
        await handle.close()
      }
    } catch {
      return false
    }
  }

  async discardPending(marker: string): Promise<void> {
    await rm(join(this.dir, pendingName(marker)), { force: true })
  }

  /**
   * After a load: events staged for the state that is now stored (`currentMarker`) are committed; others
   * were for a save that never landed and are dropped once they are old enough not to be in flight.
   */
  async recoverPending(currentMarker: string | null, now = Date.now()): Promise<void> {
    let names: string[]
    try {
      names = (await readdir(this.dir)).filter((name) => name.startsWith(PENDING_PREFIX))
    } catch {
      return
    }
    for (const name of names) {
      const path = join(this.dir, name)
      const staged = await readPending(path)
      if (staged && staged.marker === currentMarker) {
        await this.flushPending(path)
      } else {
        const age = await stat(path).then(
          (info) => now - info.mtimeMs,
          () => 0,
        )
        if (!staged || age > PENDING_IN_FLIGHT_MS) await rm(path, { force: true })
      }
    }
  }

  /**
   * The events recorded so far, oldest first. Lines that do not parse (a record torn by a crash) are
   * left out rather than failing the whole read.
   */
  async readEvents(): Promise<JourneyEvent[]> {
    let text: string
    try {
      text = await readFile(join(this.dir, JOURNEY_LOG), 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw error
    }
    const events: JourneyEvent[] = []
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue
      try {
        const event = JSON.parse(line) as JourneyEvent
        if (event && typeof event === 'object' && typeof event.type === 'string') events.push(event)
      } catch {
        // A torn record: skipped.
      }
    }
    return events
  }

  /** Writes `iterations/<n>.md` atomically. */
  async writeIteration(n: number, markdown: string): Promise<void> {
    if (!Number.isInteger(n) || n < 0) throw new Error(`iteration must be a whole number of at least 0; got ${n}`)
    await this.writeFile(['iterations'], `${n}.md`, markdown)
  }

  /** Writes `final.md` atomically. */
  async writeFinal(markdown: string): Promise<void> {
    await this.writeFile([], 'final.md', markdown)
  }

  /**
   * Writes `dead-letters/<signature>.md` (and `<signature>.pattern.yml` when a candidate pattern is
   * proposed). The signature's characters that are not safe in a file name become `_`.
   */
  async writeDeadLetter(
    signature: string,
    markdown: string,
    candidatePatternYaml?: string,
    recordJson?: string,
  ): Promise<void> {
    const name = safeFileName(signature)
    await this.writeFile(['dead-letters'], `${name}.md`, markdown)
    if (candidatePatternYaml !== undefined) {
      await this.writeFile(['dead-letters'], `${name}.pattern.yml`, candidatePatternYaml)
    }
    if (recordJson !== undefined) await this.writeFile(['dead-letters'], `${name}.json`, recordJson)
  }

  /**
   * The `dead-letters/*.json` records of every loop in the folder that holds this one (`.loop/` for the
   * CLI), its own included: at most 200 files of at most 64 KiB; unreadable ones are skipped.
   */
  async readDeadLetters(): Promise<string[]> {
    const records: string[] = []
    for (const path of await deadLetterFiles(dirname(this.dir), '.json')) {
      if (records.length >= 200) break
      const info = await stat(path).catch(() => null)
      if (!info?.isFile() || info.size > 64 * 1024) continue
      const text = await readFile(path, 'utf8').catch(() => null)
      if (text !== null) records.push(text)
    }
    return records
  }

  /**
   * Copies a check's log into `logs/<iteration>/<check>.log`, redacted line by line as it streams (memory
   * stays bounded whatever the log's size). Returns the copy's path.
   */
  async copyLog(check: string, iteration: number, logFile: string): Promise<string> {
    const folder = join(this.dir, 'logs', String(iteration))
    await mkdir(folder, { recursive: true })
    const target = join(folder, `${safeFileName(check)}.log`)
    const temporary = `${target}.${process.pid}.tmp`
    const output = createWriteStream(temporary)
    const decoder = new StringDecoder('utf8')
    let pending = ''
    const emit = async (text: string) => {
      if (!output.write(this.redact(text))) await once(output, 'drain')
    }
    try {
      for await (const chunk of createReadStream(logFile)) {
        pending += decoder.write(chunk as Buffer)
        const cut = pending.lastIndexOf('\n')
        // Redact whole lines only, so a secret split across two chunks is still found; a line with no end
        // is flushed once it grows past 1 MiB to keep memory bounded.
        if (cut >= 0) {
          await emit(pending.slice(0, cut + 1))
          pending = pending.slice(cut + 1)
        } else if (pending.length > 1024 * 1024) {
          await emit(pending)
          pending = ''
        }
      }
      pending += decoder.end()
      if (pending) await emit(pending)
      output.end()
      await once(output, 'finish')
      await rename(temporary, target)
    } catch (error) {
      output.destroy()
      await rm(temporary, { force: true })
      throw error
    }
    return target
  }

  private async writeFile(folders: string[], name: string, text: string): Promise<void> {
    const folder = join(this.dir, ...folders)
    await mkdir(folder, { recursive: true })
    await writeAtomically(folder, name, this.redact(text))
  }
}

/** Applies `redact` to every string in a JSON-like value (keys are kept; they are ours). */
function redactDeep<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === 'string') return redact(value) as T
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact)) as T
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactDeep(item, redact)])) as T
  }
  return value
}

function safeFileName(text: string): string {
  const safe = text.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_')
  return safe.slice(0, 180) || '_'
}
