/** A request the engine refuses (a command that does not fit the loop's state). The message says why. */
export class EngineError extends Error {
  override name = 'EngineError'
}

/**
 * Thrown by `beginIteration` when the loop has already run its last allowed iteration. The cap is
 * structural: no decision, state edit or retry can run iteration `maxIterations + 1`.
 */
export class CapExceededError extends EngineError {
  override name = 'CapExceededError'
}
