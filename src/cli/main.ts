/**
 * Composition root for the `loop-controller` CLI (alias `loop`), the embedded default front door:
 * parses the arguments, sets up where the loop lives, and hands each command to its module.
 * State lives in `.loop/` at the repository root, kept out of commits.
 */
import { parseArgs } from 'node:util'
import { VERSION } from '../version.js'
import { runAnalyzeCommand } from './analyze.js'
import { EXIT, reportError } from './exit-codes.js'
import { COMMANDS, type CommandName, HELP } from './help.js'
import { init } from './init.js'
import type { CliIo } from './io.js'
import { loopPlace } from './loop-place.js'
import {
  checkCommandOptions,
  checkEmptyValues,
  checkShowOptions,
  expectPositionals,
  joinNegativeNumbers,
  OPTIONS,
  unknownOptionError,
  type Values,
} from './options.js'
import { runPatternsCommand } from './patterns.js'
import { runPeopleCommand } from './people.js'
import { runIterations } from './run.js'
import { showLoop } from './show.js'
import { showAllLoops } from './status-all.js'

/** Runs the CLI and returns its exit code. Never throws. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [first, ...rest] = argv
  if (!first || first === '--help' || first === '-h' || first === 'help') {
    io.stdout(`${HELP.main}\n`)
    return first ? EXIT.complete : EXIT.usage
  }
  if (first === '--version') {
    io.stdout(`${VERSION}\n`)
    return EXIT.complete
  }
  if (!(COMMANDS as readonly string[]).includes(first)) {
    io.stderr(`Unknown command '${first}'; expected one of ${COMMANDS.join(', ')}. Try 'loop-controller --help'.\n`)
    return EXIT.usage
  }
  const command = first as CommandName
  if (command === 'analyze') {
    if (rest.includes('--help') || rest.includes('-h')) {
      io.stdout(`${HELP.analyze}\n`)
      return EXIT.complete
    }
    return runAnalyzeCommand(rest, { stdin: io.stdin, stdout: io.stdout, stderr: io.stderr, cwd: io.cwd })
  }
  try {
    const { values, positionals } = parseOptions(command, rest)
    if (values.help) {
      io.stdout(`${HELP[command]}\n`)
      return EXIT.complete
    }
    // The listing's options first: their refusals say what each needs, in words of their own.
    if (command === 'status' || command === 'history') checkShowOptions(command, values)
    checkCommandOptions(command, values)
    checkEmptyValues(values)
    return await dispatch(command, values, positionals, io)
  } catch (error) {
    return reportError(error, io)
  }
}

function parseOptions(command: Exclude<CommandName, 'analyze'>, args: string[]) {
  try {
    return parseArgs({ args: joinNegativeNumbers(args), options: OPTIONS, allowPositionals: true, strict: true })
  } catch (error) {
    throw unknownOptionError(command, error)
  }
}

/** Sets up where the loop lives, then hands the command to its module. */
async function dispatch(command: CommandName, values: Values, positionals: string[], io: CliIo): Promise<number> {
  const place = await loopPlace(values, io)
  switch (command) {
    case 'init':
      expectPositionals(command, positionals, 0, 'no arguments')
      return init(place.root, values, io)
    case 'status':
    case 'history':
      expectPositionals(command, positionals, 0, 'no arguments')
      if (command === 'status' && values.all) return showAllLoops(place, values, io)
      return showLoop(command, place, values, io)
    case 'resume':
    case 'abort':
    case 'approve':
    case 'skip':
      return runPeopleCommand(command, positionals, place, values, io)
    case 'next':
    case 'run':
      expectPositionals(command, positionals, 0, 'no arguments (use --work and --verify for simple mode)')
      return runIterations(command, place, values, io)
    case 'patterns':
      return runPatternsCommand(positionals, place, values, io)
    case 'analyze':
      // Handled before option parsing: it has options of its own.
      return EXIT.usage
  }
}
