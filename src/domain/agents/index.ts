/** The agent presets and what the loop reads from their output. Pure. */
export { classifyAgentError, failureHandoff, oneLine, stopsTheLoop } from './errors.js'
export { AGENT_PRESETS, AGENT_SECRET_NAMES, type AgentPreset, notInstalledMessage } from './presets.js'
export { callUsage, type SessionTotals } from './session-usage.js'
export * from './types.js'
