// Hermetic tests: git never reads the developer's or the runner's global config, and a `::` line that
// a test prints can never reach a real runner as a workflow command.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const home = mkdtempSync(join(tmpdir(), 'loop-test-home-'))
const gitConfig = join(home, 'gitconfig')
writeFileSync(
  gitConfig,
  '[user]\n\tname = Loop Test\n\temail = loop-test@example.invalid\n[gc]\n\tauto = 0\n[init]\n\tdefaultBranch = main\n',
)
process.env.GIT_CONFIG_GLOBAL = gitConfig
process.env.GIT_CONFIG_NOSYSTEM = '1'
process.env.GIT_TERMINAL_PROMPT = '0'
delete process.env.GITHUB_ACTIONS
