/** The live progress of a run: plain lines, or on a terminal one line per phase rewritten in place. */
import type { ProgressSink } from '../app/iteration.js'
import type { CliIo } from './io.js'
import { analysisLine, checkCell } from './render.js'

/** Off a terminal (a log, a pipe): one line per phase, per finished check and per analysis. */
export function plainProgress(io: CliIo): ProgressSink {
  return {
    phase: (iteration, stage, text) => io.stdout(`#${iteration}  ${stage.padEnd(9)}  ${text}\n`),
    checkFinished: (iteration, result) => io.stdout(`#${iteration}  VERIFY     ${checkCell(result)}\n`),
    analysis: (iteration, result, taken) =>
      io.stdout(`#${iteration}             ${result.name}: ${analysisLine(result, taken)}\n`),
  }
}

/** On a terminal: one line per iteration phase, rewritten in place as checks start and finish. */
export function ttyProgress(io: CliIo): ProgressSink {
  const cells = new Map<string, string>()
  let open = false
  const draw = (iteration: number) => {
    io.stdout(`\r\x1b[K#${iteration}  VERIFY     ${[...cells.values()].join(' · ')}`)
    open = true
  }
  const close = () => {
    if (open) io.stdout('\n')
    open = false
    cells.clear()
  }
  return {
    phase: (iteration, stage, text) => {
      close()
      io.stdout(`#${iteration}  ${stage.padEnd(9)}  ${text}\n`)
    },
    checkStarted: (iteration, check) => {
      cells.set(check.name, `${check.name} …`)
      draw(iteration)
    },
    checkFinished: (iteration, result) => {
      cells.set(result.name, checkCell(result))
      draw(iteration)
    },
    analysis: (iteration, result, taken) => {
      close()
      io.stdout(`#${iteration}             ${result.name}: ${analysisLine(result, taken)}\n`)
    },
  }
}
