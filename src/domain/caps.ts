/**
 * The iteration cap's one rule: a loop may run up to {@link CAP_WITHOUT_REASON} iterations on the cap
 * alone; above that, a person must say why (the reason is recorded in the loop's state), so a runaway
 * cap is a decision someone made, not a typo.
 */

/** Above this many iterations a loop needs a recorded `cap-reason`. */
export const CAP_WITHOUT_REASON = 25

/** How the person names the cap and its reason where they set them: config keys, action inputs or CLI flags. */
export interface CapSettingNames {
  cap: string
  reason: string
}

/** The names in the loop config (`.github/loop.yml`). */
export const CONFIG_CAP_NAMES: CapSettingNames = { cap: 'max-iterations', reason: 'cap-reason' }

/**
 * What is wrong with a cap and its reason, named the way the person set them; undefined when the cap
 * is fine. A reason of only spaces is no reason.
 */
export function capNeedsReason(
  maxIterations: number,
  capReason: string | undefined,
  names: CapSettingNames = CONFIG_CAP_NAMES,
): string | undefined {
  if (maxIterations <= CAP_WITHOUT_REASON || capReason?.trim()) return undefined
  return (
    `${names.cap} is ${maxIterations}, above ${CAP_WITHOUT_REASON}: set ${names.reason} to say why this loop ` +
    `needs more than ${CAP_WITHOUT_REASON} iterations (it is recorded in the loop's state), or lower the cap ` +
    `to ${CAP_WITHOUT_REASON} or less.`
  )
}
