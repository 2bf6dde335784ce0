/** The Mermaid stage diagram of the job summary. Pure. */
import { CAPABILITY_LOOP, type LoopStatus, STAGES, type Stage } from '../stages.js'

/**
 * A `stateDiagram-v2` of the pipeline: one transition per line (chains are not stateDiagram syntax),
 * the per-capability loop back from VERIFY to IMPLEMENT when both are in the pipeline, finished stages
 * in the `done` class, and the current one in `current` (or `stopped` when the loop is blocked, capped
 * or aborted).
 */
export function renderStageDiagram(pipeline: readonly Stage[], stage: Stage, status: LoopStatus): string {
  const ordered = STAGES.filter((s) => pipeline.includes(s))
  const lines = ['stateDiagram-v2', '  direction LR']
  if (ordered.length === 1) lines.push(`  ${ordered[0]}`)
  for (let i = 1; i < ordered.length; i++) lines.push(`  ${ordered[i - 1]} --> ${ordered[i]}`)
  const loopStart = CAPABILITY_LOOP[0] as Stage
  const loopEnd = CAPABILITY_LOOP[CAPABILITY_LOOP.length - 1] as Stage
  if (ordered.includes(loopStart) && ordered.includes(loopEnd)) {
    lines.push(`  ${loopEnd} --> ${loopStart}: next capability / retry`)
  }
  lines.push('  classDef done fill:#2da44e,color:#fff')
  lines.push('  classDef current fill:#bf8700,color:#fff')
  lines.push('  classDef stopped fill:#cf222e,color:#fff')
  const complete = status === 'complete' || stage === 'COMPLETE'
  const currentIndex = STAGES.indexOf(stage)
  const done = complete ? ordered : ordered.filter((s) => STAGES.indexOf(s) < currentIndex)
  if (done.length > 0) lines.push(`  class ${done.join(',')} done`)
  if (!complete && ordered.includes(stage)) {
    const stopped = status === 'blocked' || status === 'capped' || status === 'aborted'
    lines.push(`  class ${stage} ${stopped ? 'stopped' : 'current'}`)
  }
  return `\`\`\`mermaid\n${lines.join('\n')}\n\`\`\``
}
