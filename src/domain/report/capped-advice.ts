/**
 * What a person does to let a capped loop go on, by the limit that capped it and where the advice is
 * read. A cap given above the iterations run re-opens a loop its iteration cap capped (the
 * `max-iterations` input, `--max-iterations` on `run`, `next` and `resume`); a loop a budget capped goes
 * on once the budget in the loop config is raised and it is resumed. Pure.
 */
import { CAP_WITHOUT_REASON } from '../caps.js'
import type { CapLimit } from '../engine/decide.js'

/** Where the advice is read: the CLI, a thread to comment on (issue or pull request), or only the Actions tab. */
export type AdviceSurface = 'cli' | 'thread' | 'dispatch-only'

const BUDGET_KEYS: Record<Exclude<CapLimit, 'iterations'>, string> = {
  minutes: 'budget.minutes',
  tokens: 'budget.tokens',
  cost: 'budget.cost-usd',
}

/** The next step for a capped loop; `iterationsRun`: the cap must lie above them; `branch` in backticks. */
export function cappedNextStep(limit: CapLimit, iterationsRun: number, surface: AdviceSurface, branch: string): string {
  const byHand = surface === 'cli' ? 'finish by hand' : `finish ${branch} by hand`
  if (limit !== 'iterations') {
    const raise = `raise \`${BUDGET_KEYS[limit]}\` in the loop config`
    if (surface === 'cli') return `${raise}, then run \`loop-controller resume\`; or ${byHand}.`
    if (surface === 'thread') return `${raise}, then comment \`/loop resume\`; or ${byHand}.`
    return `${raise}, then run the workflow again with the loop's \`loop-id\` and \`command: resume\`; or ${byHand}.`
  }
  const above = `above ${iterationsRun}`
  if (surface === 'cli') {
    return `give it a higher cap: \`loop-controller run --max-iterations N\` with N ${above} (above ${CAP_WITHOUT_REASON} with \`--cap-reason\`); or ${byHand}.`
  }
  const reason = `above ${CAP_WITHOUT_REASON} it needs a \`cap-reason\``
  if (surface === 'dispatch-only') {
    return `run the workflow again with the loop's \`loop-id\` and a \`max-iterations\` ${above} (${reason}): the higher cap re-opens the loop; or ${byHand}.`
  }
  // On a thread the comment's job carries the cap its workflow passes (the issue workflow's fixed
  // `max-iterations`); a workflow with a `max-iterations` input takes it from a dispatch instead.
  return `raise the \`max-iterations\` the workflow passes ${above} (${reason}) and comment \`/loop resume\`, or, where the workflow takes \`max-iterations\` as an input, run it again with the loop's \`loop-id\` and one ${above}: the higher cap re-opens the loop; or ${byHand}.`
}
