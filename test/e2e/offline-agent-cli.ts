// npm and Claude Code as a runner would have them, offline, for the e2e tests that run a workflow with
// the claude preset: the workflow's own `npm install --global @anthropic-ai/claude-code@<version>` step
// is what puts `claude` on PATH, so a workflow that forgets the step meets no CLI, as on GitHub.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onTestFinished } from 'vitest'

/** Answers as `claude -p --output-format json` does after climbing one step of the staircase (tools/work.mjs). */
const CLAUDE = `#!/usr/bin/env bash
cat > /dev/null
node tools/work.mjs >&2
echo '{"type":"result","subtype":"success","is_error":false,"result":"climbed","session_id":"s-1","num_turns":1,"total_cost_usd":0.01,"usage":{"input_tokens":10,"output_tokens":5}}'
`

/**
 * A folder to put first on PATH, removed when the test finishes. Its `npm` logs each call to
 * `<folder>/npm.log`; `npm install` of the Claude Code package installs the `claude` above; `npm test`
 * runs the staircase's last check (`node tools/check.mjs 2`); anything else (`npm ci`, `npm run ...`)
 * passes.
 */
export function offlineNpmAndClaude(): string {
  const bin = mkdtempSync(join(tmpdir(), 'loop-e2e-bin-'))
  onTestFinished(() => rmSync(bin, { recursive: true, force: true }))
  const npm = `#!/usr/bin/env bash
echo "npm $*" >> "${bin}/npm.log"
case "$1" in
  install) if [[ "$*" == *@anthropic-ai/claude-code@* ]]; then cp "${bin}/claude.source" "${bin}/claude" && chmod +x "${bin}/claude"; fi ;;
  test) node tools/check.mjs 2 ;;
  *) true ;;
esac
`
  writeFileSync(join(bin, 'claude.source'), CLAUDE)
  writeFileSync(join(bin, 'npm'), npm)
  chmodSync(join(bin, 'npm'), 0o755)
  return bin
}
