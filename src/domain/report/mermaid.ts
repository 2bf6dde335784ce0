/** The Mermaid stage diagram of the summary and the comment: where the loop stands. Pure. */
import { CAPABILITY_LOOP, type LoopStatus, STAGES, type Stage } from '../stages.js'

export interface DiagramInput {
  pipeline: readonly Stage[]
  stage: Stage
  status: LoopStatus
  iteration: number
  maxIterations: number
  /** This iteration's verdict: a failure marks the stage that verified. */
  verdict: 'pass' | 'fail' | 'none'
  /** The gate a waiting loop waits on. */
  gate: string | null
}

// The states besides the pipeline's stages, shown only when the loop is in them.
const END_NODES: Partial<Record<LoopStatus, { id: string; label: (input: DiagramInput) => string }>> = {
  blocked: { id: 'BLOCKED', label: (d) => `BLOCKED at iteration ${d.iteration} of ${d.maxIterations}` },
  capped: { id: 'CAPPED', label: (d) => `Cap reached: ${d.iteration} of ${d.maxIterations} iterations` },
  aborted: {
    id: 'ABORTED',
    label: (d) =>
      d.iteration === 0
        ? 'Aborted before its first iteration'
        : `Aborted at iteration ${d.iteration} of ${d.maxIterations}`,
  },
  waiting: { id: 'WAITING', label: (d) => (d.gate ? `Waiting for gate ${d.gate}` : 'Waiting') },
}

/**
 * A `stateDiagram-v2` of the pipeline (one transition per line: chains are not stateDiagram syntax)
 * that shows where the loop stands: finished stages green, the current one amber, the stage whose
 * checks failed red-outlined, and, when the loop stopped or waits, a state of its own (BLOCKED, the
 * cap, aborted, the gate) filled red or amber. The iteration count is on the retry edge and the end
 * state; COMPLETE says how many iterations it took.
 */
export function renderStageDiagram(input: DiagramInput): string {
  const { pipeline, stage, status, iteration, maxIterations } = input
  const ordered = STAGES.filter((s) => pipeline.includes(s))
  const lines = ['stateDiagram-v2', '  direction LR']
  const complete = status === 'complete' || stage === 'COMPLETE'
  // Aborted before its first iteration (while queued): it left from the start, not from a stage.
  const neverRan = status === 'aborted' && iteration === 0
  if (complete && ordered.includes('COMPLETE')) {
    lines.push(`  state "COMPLETE in ${iteration} iteration${iteration === 1 ? '' : 's'}" as COMPLETE`)
  }
  if (ordered[0]) lines.push(`  [*] --> ${ordered[0]}`)
  for (let i = 1; i < ordered.length; i++) lines.push(`  ${ordered[i - 1]} --> ${ordered[i]}`)
  const loopStart = CAPABILITY_LOOP[0] as Stage
  const loopEnd = CAPABILITY_LOOP[CAPABILITY_LOOP.length - 1] as Stage
  const loops = ordered.includes(loopStart) && ordered.includes(loopEnd)
  if (loops) {
    lines.push(
      `  ${loopEnd} --> ${loopStart}: ${complete || neverRan ? 'retry' : `retry · iteration ${iteration} of ${maxIterations}`}`,
    )
  }

  // The stage whose checks ran this iteration: VERIFY where the pipeline has it, else where the loop is.
  const verifiedAt: Stage = loops && !complete ? loopEnd : stage
  const end = complete ? undefined : END_NODES[status]
  if (end) {
    lines.push(`  state "${end.label(input)}" as ${end.id}`)
    const from = neverRan ? '[*]' : ordered.includes(verifiedAt) ? verifiedAt : (ordered[0] ?? stage)
    lines.push(`  ${from} --> ${end.id}`)
  }

  lines.push('  classDef done fill:#dafbe1,stroke:#1a7f37,color:#1f2328')
  lines.push('  classDef current fill:#fff8c5,stroke:#9a6700,color:#1f2328,stroke-width:2px')
  lines.push('  classDef failed fill:#ffebe9,stroke:#cf222e,color:#1f2328,stroke-width:2px')
  lines.push('  classDef stopped fill:#cf222e,stroke:#82071e,color:#ffffff')
  lines.push('  classDef waiting fill:#bf8700,stroke:#7d4e00,color:#ffffff')

  const currentIndex = STAGES.indexOf(stage)
  const failedStage = !complete && input.verdict === 'fail' && ordered.includes(verifiedAt) ? verifiedAt : null
  const done = complete ? ordered : ordered.filter((s) => STAGES.indexOf(s) < currentIndex && s !== failedStage)
  if (done.length > 0) lines.push(`  class ${done.join(',')} done`)
  if (failedStage) lines.push(`  class ${failedStage} failed`)
  const stopped = status === 'blocked' || status === 'capped' || status === 'aborted'
  if (!complete && !stopped && ordered.includes(stage) && stage !== failedStage) lines.push(`  class ${stage} current`)
  if (end) lines.push(`  class ${end.id} ${status === 'waiting' ? 'waiting' : 'stopped'}`)
  return `\`\`\`mermaid\n${lines.join('\n')}\n\`\`\``
}
