/**
 * The agent presets, one table: how each CLI is called, what its output says, which secrets it reads
 * and how a person installs it. The values come from each CLI's own documented flags. Pure.
 */
import { aiderCall, readAiderOutput } from './aider.js'
import { claudeCall, readClaudeOutput } from './claude.js'
import { codexCall, readCodexOutput } from './codex.js'
import { geminiCall, readGeminiOutput } from './gemini.js'
import type { AgentCall, AgentCallInput, AgentReport, AgentSettings, PresetName } from './types.js'

export interface AgentPreset {
  /** What a person calls it. */
  title: string
  /** The npm package or installer, pinned where the loop's own tests pin it. */
  install: string
  /** The environment variables it reads its credentials and endpoint from: handed to the agent alone. */
  secretNames: readonly string[]
  /** Whether the CLI can take the loop's remaining USD inside the call. */
  holdsBudget: boolean
  call(settings: AgentSettings, input: AgentCallInput): AgentCall
  /** `stdout` alone where the CLI prints machine output there; `output` is stdout and stderr together. */
  read(run: { stdout: string; output: string; exitCode: number | null }): AgentReport
}

export const AGENT_PRESETS: Readonly<Record<PresetName, AgentPreset>> = {
  claude: {
    title: 'Claude Code',
    install: 'npm install -g @anthropic-ai/claude-code',
    secretNames: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN', 'ANTHROPIC_BASE_URL'],
    holdsBudget: true,
    call: claudeCall,
    read: ({ stdout }) => readClaudeOutput(stdout),
  },
  codex: {
    title: 'Codex',
    install: 'npm install -g @openai/codex',
    secretNames: ['OPENAI_API_KEY', 'CODEX_API_KEY', 'OPENAI_BASE_URL'],
    holdsBudget: false,
    call: codexCall,
    read: ({ stdout }) => readCodexOutput(stdout),
  },
  gemini: {
    title: 'Gemini CLI',
    install: 'npm install -g @google/gemini-cli',
    secretNames: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_APPLICATION_CREDENTIALS'],
    holdsBudget: false,
    call: geminiCall,
    read: ({ stdout, exitCode }) => readGeminiOutput(stdout, exitCode),
  },
  aider: {
    title: 'aider',
    install: 'python -m pip install aider-install && aider-install',
    secretNames: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'OPENROUTER_API_KEY', 'DEEPSEEK_API_KEY'],
    holdsBudget: false,
    call: aiderCall,
    read: ({ output, exitCode }) => readAiderOutput(output, exitCode),
  },
}

/** Every variable some preset reads its credentials or endpoint from: an agent's, never a check's. */
export const AGENT_SECRET_NAMES: readonly string[] = [
  ...new Set(Object.values(AGENT_PRESETS).flatMap((preset) => preset.secretNames)),
]

/** The message for a preset whose CLI is not on PATH: what is missing and how to install it. */
export function notInstalledMessage(name: PresetName, binary: string): string {
  const preset = AGENT_PRESETS[name]
  return `agent '${name}': '${binary}' (${preset.title}) is not installed or not on PATH; install it with \`${preset.install}\` in a step before the loop`
}
