/**
 * `loop-controller patterns promote [NAME|--all] [--from DEAD_LETTER]`: copies the candidate patterns
 * written with dead letters (`.loop/<loop-id>/dead-letters/<signature>.pattern.yml`) into the patterns
 * the loop config names: its `patterns:` file, its inline list, or (with no `patterns:` key) a new
 * `.github/loop-patterns.yml` that the config is made to name. Validated and deduplicated first.
 */
import { readdir } from 'node:fs/promises'
import { basename, join, relative, resolve } from 'node:path'
import { isMap, isSeq, parse, parseDocument, type YAMLSeq } from 'yaml'
import { deadLetterFiles } from '../adapters/audit-trail.js'
import { nodeWorkspace } from '../adapters/node-workspace.js'
import { parsePatternFile } from '../config/pattern-library.js'
import { buildLibrary, type PatternConfig } from '../domain/analysis/index.js'
import { type Candidate, planPromotion } from '../domain/analysis/promote-patterns.js'
import { loadCliConfig } from './config.js'
import { EXIT, UsageError } from './exit-codes.js'
import type { CliIo } from './io.js'
import type { LoopPlace } from './loop-place.js'
import type { Values } from './options.js'

/** Where promoted patterns go when the loop config names none yet. */
export const NEW_PATTERNS_FILE = '.github/loop-patterns.yml'
const CANDIDATE_SUFFIX = '.pattern.yml'

export async function runPatternsCommand(
  positionals: string[],
  place: LoopPlace,
  values: Values,
  io: CliIo,
): Promise<number> {
  const [subcommand, name, ...extra] = positionals
  if (subcommand !== 'promote') {
    throw new UsageError(
      `'patterns' takes the subcommand 'promote'; got ${subcommand ? `'${subcommand}'` : 'nothing'}.`,
    )
  }
  if (extra.length > 0)
    throw new UsageError(`'patterns promote' takes one NAME; got '${[name, ...extra].join("' '")}'.`)
  if (name !== undefined && values.all) throw new UsageError(`'patterns promote' takes a NAME or --all, not both.`)
  const shown = (path: string) => relative(io.cwd, path) || path
  const found = await findCandidates(place, values.from, io.cwd, shown)
  const listed = () =>
    found.length > 0
      ? `the candidates are: ${[...new Set(found.map((c) => c.pattern.id))].join(', ')}`
      : `there are none in ${shown(place.stateDir)}/*/dead-letters/ (a candidate is proposed when a loop is BLOCKED after 3 or more similar failures no pattern matched)`
  if (name === undefined && !values.all) {
    throw new UsageError(`'patterns promote' needs the NAME of a candidate pattern or --all; ${listed()}.`)
  }
  const chosen = values.all ? found : found.filter((c) => c.pattern.id === name)
  if (name !== undefined && chosen.length === 0) {
    throw new UsageError(`No candidate pattern named '${name}'${values.from ? ` in ${values.from}` : ''}; ${listed()}.`)
  }
  if (chosen.length === 0) {
    io.stdout(`Nothing to promote: ${listed()}.\n`)
    return EXIT.complete
  }

  const target = await patternsTarget(place.root, values, io)
  const plan = planPromotion(target.existing, chosen)
  for (const { candidate, reason } of plan.skipped) {
    // Already there is not an error: promoting twice leaves the file as it was.
    io.stdout(
      `Not added: '${candidate.pattern.id}' (${shown(candidate.source)}): ${reason} in ${shown(target.file)}.\n`,
    )
  }
  if (plan.add.length === 0) return EXIT.complete
  // Every regex of the result must compile before anything is written.
  buildLibrary([...target.existing, ...plan.add.map((c) => c.pattern)])
  for (const candidate of plan.add) target.list.add(target.document.createNode(candidate.raw))
  await target.write()
  for (const candidate of plan.add) {
    io.stdout(`Added pattern '${candidate.pattern.id}' to ${shown(target.file)} (from ${shown(candidate.source)}).\n`)
  }
  if (target.named)
    io.stdout(`The loop config ${shown(target.configPath)} now names it: patterns: ${NEW_PATTERNS_FILE}\n`)
  io.stdout(
    `Review the signals and the strategy before the next loop; try it on a saved log: loop-controller analyze LOG --patterns ${shown(target.file)}\n`,
  )
  return EXIT.complete
}

interface FoundCandidate extends Candidate {
  /** The pattern as its file spells it (no defaults filled in), for writing. */
  raw: unknown
}

/** The candidate patterns of every loop's dead letters, or of the one `--from` names. */
async function findCandidates(
  place: LoopPlace,
  from: string | undefined,
  cwd: string,
  shown: (path: string) => string,
): Promise<FoundCandidate[]> {
  const files =
    from === undefined
      ? await deadLetterFiles(place.stateDir, CANDIDATE_SUFFIX)
      : [await candidateFileOf(place, from, cwd)]
  const candidates: FoundCandidate[] = []
  for (const file of files) {
    const text = await nodeWorkspace.readText(file, 256 * 1024)
    if (text === null) continue
    const patterns = parsePatternFile(text, shown(file))
    const raw = rawPatterns(text)
    patterns.forEach((pattern, index) => {
      candidates.push({ pattern, source: file, raw: raw[index] })
    })
  }
  return candidates
}

/**
 * `--from`: a dead letter's file (its `.md`, `.json` or `.pattern.yml`), or its name (the signature, or
 * the file name without extension) in any loop's `dead-letters/`.
 */
async function candidateFileOf(place: LoopPlace, from: string, cwd: string): Promise<string> {
  const stem = (file: string) => file.replace(/\.(pattern\.yml|md|json)$/, '')
  const asPath = resolve(cwd, from)
  let letter: string | null = (await exists(asPath)) ? stem(asPath) : null
  if (letter === null) {
    const wanted = stem(basename(from)).replace(/[^A-Za-z0-9._-]/g, '_')
    for (const loop of (await readdir(place.stateDir).catch(() => [] as string[])).sort()) {
      const candidate = join(place.stateDir, loop, 'dead-letters', wanted)
      if ((await exists(`${candidate}.md`)) || (await exists(`${candidate}${CANDIDATE_SUFFIX}`))) {
        letter = candidate
        break
      }
    }
  }
  if (letter === null) {
    throw new UsageError(
      `--from: no dead letter '${from}': not a file, nor a name in ${relative(cwd, place.stateDir) || place.stateDir}/*/dead-letters/; expected a dead letter's path or its signature (see final.md of a BLOCKED loop).`,
    )
  }
  const file = `${letter}${CANDIDATE_SUFFIX}`
  if (!(await exists(file))) {
    throw new UsageError(
      `--from: the dead letter ${relative(cwd, letter) || letter} proposes no candidate pattern (${basename(file)} is missing); one is proposed when 3 or more similar failures had no confident match.`,
    )
  }
  return file
}

async function exists(path: string): Promise<boolean> {
  return (await nodeWorkspace.readText(path, 1)) !== null
}

function rawPatterns(text: string): unknown[] {
  const document = parse(text) as unknown
  if (Array.isArray(document)) return document
  const list = (document as { patterns?: unknown } | null)?.patterns
  return Array.isArray(list) ? list : []
}

interface PatternsTarget {
  /** The file written: the patterns file, or the loop config for an inline list. */
  file: string
  configPath: string
  existing: PatternConfig[]
  document: ReturnType<typeof parseDocument>
  list: YAMLSeq
  /** The loop config was made to name a new patterns file. */
  named: boolean
  write(): Promise<void>
}

/** The patterns the loop config names, as a YAML document to append to (comments kept). */
async function patternsTarget(root: string, values: Values, io: CliIo): Promise<PatternsTarget> {
  // Promoted patterns are read through a loop config; simple mode has none, so its advice would not help.
  const configFile = resolve(io.cwd, values.config ?? join(root, '.github', 'loop.yml'))
  if (!(await exists(configFile))) {
    throw new UsageError(
      `'patterns promote' adds the candidates to the patterns a loop config names, and there is no loop config at ${relative(io.cwd, configFile) || configFile}${values.config === undefined ? ` (a loop run in simple mode has none): write one with 'loop-controller init', or name yours with --config FILE` : ': expected the path of your loop config'}.`,
    )
  }
  const loaded = await loadCliConfig(root, { ...values, work: undefined, verify: undefined }, io)
  const configPath = loaded.configPath
  if (configPath === null) throw new UsageError('patterns promote writes to the loop config; none was found.')
  const setting = loaded.config.patterns
  if (Array.isArray(setting)) {
    const document = parseDocument((await nodeWorkspace.readText(configPath)) ?? '')
    const list = document.get('patterns', true)
    if (!isSeq(list)) throw new UsageError(`${configPath}: 'patterns' is not a list; expected a list or a file path.`)
    return {
      file: configPath,
      configPath,
      existing: setting,
      document,
      list,
      named: false,
      write: () => save(configPath, document),
    }
  }
  const named = setting === undefined
  const file = resolve(root, setting ?? NEW_PATTERNS_FILE)
  const text = (await nodeWorkspace.readText(file)) ?? ''
  const existing = text.trim() === '' ? [] : parsePatternFile(text, relative(io.cwd, file) || file)
  const document = parseDocument(text.trim() === '' ? 'patterns: []\n' : text)
  const contents = document.contents
  const list = isSeq(contents) ? contents : isMap(contents) ? document.get('patterns', true) : null
  if (!isSeq(list)) throw new UsageError(`${file}: expected a list of patterns or {patterns: [...]}.`)
  if (list.flow && list.items.length === 0) list.flow = false
  const write = async () => {
    await save(file, document)
    if (!named) return
    const config = parseDocument((await nodeWorkspace.readText(configPath)) ?? '')
    config.set('patterns', NEW_PATTERNS_FILE)
    await save(configPath, config)
  }
  return { file, configPath, existing, document, list, named, write }
}

async function save(path: string, document: ReturnType<typeof parseDocument>): Promise<void> {
  await nodeWorkspace.writeText(path, document.toString({ lineWidth: 0 }))
}
