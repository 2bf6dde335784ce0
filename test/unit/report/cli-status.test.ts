// `loop-controller status` says why a loop stopped and what a person does next, from the same view as
// the job summary and the comment, with the CLI's own commands.
import { describe, expect, it } from 'vitest'
import { renderStatus } from '../../../src/cli/render.js'
import type { LoopState } from '../../../src/domain/state.js'
import { policyOf, startState } from '../engine/helpers.js'

const base = startState(policyOf())
const at = base.updatedAt

describe('status: why and the next step for a person', () => {
  it.each<{ name: string; state: Partial<LoopState>; you: string | null; reason?: string }>([
    { name: 'running', state: {}, you: null },
    {
      name: 'blocked',
      state: { status: 'blocked', statusReason: 'the same type-error came back. ' },
      you: 'fix the cause or clarify the goal, then run `loop-controller resume`; to give up, `loop-controller abort`.',
      reason: 'the same type-error came back',
    },
    {
      name: 'capped',
      state: { status: 'capped', statusReason: 'the iteration cap of 10 is reached' },
      // `run --max-iterations N` re-opens the loop; a `resume` without a higher cap is refused.
      you: 'give it a higher cap: `loop-controller run --max-iterations N` with N above 0 (above 25 with `--cap-reason`); or finish by hand.',
    },
    {
      name: 'waiting at a gate',
      state: {
        status: 'waiting',
        gates: { security: { status: 'pending', reason: 'auth/ changed', requestedAt: at } },
      },
      you: 'approve gate `security`: run `loop-controller approve security`.',
      reason: 'auth/ changed',
    },
    {
      name: 'complete',
      state: { status: 'complete', stage: 'COMPLETE' },
      you: "review the loop's commits (`loop-controller history`) and merge them.",
    },
  ])('$name', ({ state, you, reason }) => {
    const text = renderStatus({ ...base, ...state }, null)
    const line = (label: string) => text.split('\n').find((l) => l.startsWith(label))
    if (you === null) expect(line('you ')).toBeUndefined()
    else expect(line('you ')).toBe(`you           ${you}`)
    if (reason) expect(line('reason ')).toBe(`reason        ${reason}`)
    // No GitHub command in a terminal.
    expect(text).not.toContain('/loop ')
  })

  it('says COMPLETE once: no reason or loop plan repeats it, and time under a minute in seconds', () => {
    const state = {
      ...base,
      status: 'complete' as const,
      stage: 'COMPLETE' as const,
      statusReason: 'complete after 3 iterations',
    }
    const text = renderStatus({ ...state, usage: { ...base.usage, wallMs: 12_400, tokens: 2850 } }, policyOf())
    expect(text.split('\n')[0]).toBe('loop-1 · COMPLETE · complete · iteration 0 of 10 · 12.4 s · 2,850 tokens')
    expect(text).not.toMatch(/^reason /m)
    expect(text).not.toMatch(/^next /m)
    expect(text).toMatch(/^you {11}review/m)
  })
})
