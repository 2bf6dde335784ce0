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
import { checkShowOptions, expectPositionals, OPTIONS, type Values } from './options.js'
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
    const { values, positionals } = parseArgs({ args: rest, options: OPTIONS, allowPositionals: true, strict: true })
    if (values.help) {
      io.stdout(`${HELP[command]}\n`)
      return EXIT.complete
    }
    return await dispatch(command, values, positionals, io)
  } catch (error) {
    return reportError(error, io)
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
      checkShowOptions(command, values)
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
