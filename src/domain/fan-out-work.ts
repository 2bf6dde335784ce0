/** The plan file's report of the work (`fan-out.ts`): what the agent's call ended as, in the plan job. */
import { z } from 'zod'
import type { AgentFailureKind } from './agents/types.js'

const AGENT_FAILURE_KINDS = [
  'overloaded',
  'rate-limit',
  'server-error',
  'network',
  'auth',
  'quota',
  'max-turns',
  'budget',
  'bad-request',
  'not-installed',
  'timed-out',
  'unknown',
] as const satisfies readonly AgentFailureKind[]
// Every kind the agents know is one a plan may report: a new kind fails to compile here.
const everyKind: Record<Exclude<AgentFailureKind, (typeof AGENT_FAILURE_KINDS)[number]>, never> = {}
void everyKind

/** The plan's report of its work: the work command's exit, usage and failure, as the plan measured them. */
export const workSchema = z.strictObject({
  exitCode: z.number().int().nullable(),
  blocked: z.boolean(),
  blockedReason: z.string().optional(),
  durationMs: z.number().nonnegative(),
  tokens: z.number().nonnegative().optional(),
  costUsd: z.number().nonnegative().optional(),
  session: z.string().optional(),
  sessionUsage: z.strictObject({ tokens: z.number(), costUsd: z.number() }).optional(),
  failure: z
    .strictObject({
      kind: z.enum(AGENT_FAILURE_KINDS),
      transient: z.boolean(),
      message: z.string().max(2000),
    })
    .optional(),
  agent: z.string().max(200).optional(),
})
