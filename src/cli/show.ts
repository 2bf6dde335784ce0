/** `loop-controller status` and `history`: where the loop is, and what each iteration did. */
import { relative } from 'node:path'
import { policyIfConfigured } from './config.js'
import { EXIT, exitFor } from './exit-codes.js'
import type { CliIo } from './io.js'
import type { LoopPlace } from './loop-place.js'
import type { Values } from './options.js'
import { renderHistory, renderStatus, statusJson } from './render.js'

/** Prints the loop's status or history (as text, or `--json`); the exit code says where the loop is. */
export async function showLoop(
  command: 'status' | 'history',
  place: LoopPlace,
  values: Values,
  io: CliIo,
): Promise<number> {
  const { root, stateDir, loopId, store, audit } = place
  const loaded = await store.load(loopId)
  if (!loaded) {
    io.stdout(
      `No loop '${loopId}' yet in ${relative(io.cwd, stateDir) || '.'}. Start one with 'loop-controller run'.\n`,
    )
    return EXIT.complete
  }
  if (command === 'status') {
    io.stdout(
      values.json
        ? `${JSON.stringify(statusJson(loaded.state), null, 2)}\n`
        : renderStatus(loaded.state, await policyIfConfigured(root, values, io)),
    )
  } else {
    const events = await audit.readEvents()
    io.stdout(values.json ? `${JSON.stringify(events, null, 2)}\n` : renderHistory(loaded.state, events))
  }
  return exitFor(loaded.state.status)
}
