/** The CLI's commands and their help texts. */
import { CAP_WITHOUT_REASON } from '../domain/caps.js'
import { VERSION } from '../version.js'

export const COMMANDS = [
  'init',
  'next',
  'run',
  'status',
  'history',
  'resume',
  'skip',
  'approve',
  'abort',
  'analyze',
  'patterns',
] as const
export type CommandName = (typeof COMMANDS)[number]

export const HELP: Record<CommandName | 'main', string> = {
  main: `loop-controller ${VERSION}: run a coding agent in a closed, machine-checked loop.

Usage: loop-controller <command> [options]     (alias: loop)

Commands:
  init      write a starter .github/loop.yml and keep .loop/ out of git
  run       run iterations until COMPLETE, BLOCKED, a gate, or a cap (starts a loop if none)
  next      run exactly one iteration
  status    show where the loop is
  history   list the iterations and what happened in each
  resume    continue a BLOCKED, waiting or capped loop after a person stepped in
  skip      skip a required stage task:  skip TASK --reason "why"
  approve   approve a gate:              approve GATE
  abort     stop the loop for good
  analyze   classify one check's output: analyze [FILE|-] [--kind KIND] [--json]
  patterns  promote dead letters' candidate patterns: patterns promote [NAME|--all] [--from DEAD_LETTER]

Options (a command refuses one it does not read, naming those it takes):
  --config FILE        the loop config (default: .github/loop.yml at the repository root)
  --work CMD           simple mode, no config file: the work command
  --agent NAME         the agent preset: claude, codex, gemini, aider or command (over the config's)
  --isolation MODE     auto (default: the agent and checks in their own PID namespace where the
                       machine allows it), pid-namespace (refuse to run without it) or none
  --verify CMD         simple mode: a verify command (repeat for several)
  --max-iterations N   the hard iteration cap (default 10; above ${CAP_WITHOUT_REASON} needs --cap-reason)
  --cap-reason TEXT    why the cap is above ${CAP_WITHOUT_REASON} (recorded)
  --loop-id ID         which loop (default: from the current branch)
  --state-dir DIR      where state lives (default: .loop at the repository root)
  --no-commit          do not commit each iteration's changes as a checkpoint
  -h, --help           help for a command

Exit codes: 0 COMPLETE (for next: the iteration ran), 1 internal error, 2 usage or configuration error,
3 BLOCKED, 4 waiting for approval, 5 a cap or budget reached, 6 aborted.`,
  init: `loop-controller init [--work CMD | --agent NAME] [--verify CMD]... [--force]

Writes a starter .github/loop.yml (from --work/--verify when given) and adds .loop/ to .git/info/exclude.`,
  run: `loop-controller run [--config FILE | --work CMD | --agent NAME --verify CMD...] [--max-iterations N] [--no-commit]

Runs iterations until the loop is COMPLETE, BLOCKED, waits at a gate, or reaches a cap. Starts a loop when
none exists. Prints a live progress line per check on a terminal, plain lines otherwise.`,
  next: `loop-controller next [--config FILE | --work CMD | --agent NAME --verify CMD...] [--max-iterations N] [--no-commit]

Runs exactly one iteration: decide, work, verify, analyze, persist.`,
  status: `loop-controller status [--loop-id ID | --all [--remote NAME|URL [--state-branch B] [--max-loops N]]] [--json]

Shows the stage, status, iteration, budget, failures, gates and the next action. With --all, one line
per loop in the state directory: stage, status, how long ago it last saved, iterations of the cap, what
it spent, its last verdict (the failing checks named) and its pull request. A loop whose state cannot be
read is listed unreadable, its problem cut short (--json has it whole) and counted on stderr; the exit
code stays 0, as for any listing. With --remote, the loops the action keeps on that remote's state branch
(default loop-state; GH_TOKEN or GITHUB_TOKEN for a private repository), each queued loop's place in
line (the limit the queue recorded at its last change; --max-loops N overrides it) and, for a GitHub remote,
each last run's address, read without writing anything. The table is for reading (a queue column only
while a loop is queued); scripts read --json, whose fields stay put.`,
  history: `loop-controller history [--loop-id ID] [--json]

Lists each iteration: decision, checks, verdicts, patterns and strategies.`,
  resume: `loop-controller resume [--max-iterations N] [--loop-id ID]

Clears BLOCKED (or a wait) after a person stepped in; the total failure count is kept. A loop capped by
its iteration cap resumes with a higher cap (--max-iterations N above the iterations run; run and next
take it too); one capped by a budget, once the budget in the loop config is raised.`,
  skip: `loop-controller skip TASK --reason "why" [--loop-id ID]

Marks a required stage task as skipped, with the reason recorded.`,
  approve: `loop-controller approve GATE [--loop-id ID]

Approves a pending gate (architecture, security, database, external, deploy, verifier, or your own).`,
  abort: `loop-controller abort [--reason "why"] [--loop-id ID]

Stops the loop for good; its state and audit trail are kept, the reason recorded. A 'run' in another
terminal stops once its current iteration is saved and exits 6 (ABORTED). A loop not started yet is
recorded as aborted, so a later 'run' does not start it.`,
  analyze: `loop-controller analyze [FILE|-] [--kind KIND] [--patterns FILE] [--json]

Reads one check's output and prints the pattern, confidence, strategy, locations and signature.`,
  patterns: `loop-controller patterns promote [NAME | --all] [--from DEAD_LETTER] [--config FILE] [--state-dir DIR]

Adds the candidate patterns written with dead letters (.loop/<loop-id>/dead-letters/<signature>.pattern.yml,
proposed when a loop is BLOCKED after 3 or more similar failures no pattern matched) to the repository's own
patterns: the file the loop config's 'patterns:' names, its inline list, or, with no 'patterns:' key, a new
.github/loop-patterns.yml that the config is made to name. Each is validated (its regexes compile) and
left out when the patterns already hold its id or its very signals.

  NAME                 the candidate's id (candidate-<hash>), as the dead letter names it
  --all                every candidate found
  --from DEAD_LETTER   only the dead letter at this path (.md, .json or .pattern.yml) or with this signature

Exit 0 when added (or already there), 2 for an unknown NAME, a missing dead letter or an invalid pattern.`,
}
