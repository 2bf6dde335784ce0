/**
 * Choosing and proving the isolation of the project's commands (see `domain/isolation.ts`): each way
 * to get a PID namespace with its own /proc is tried in turn, strongest and cheapest first, and kept
 * only when a probe run through it cannot see the controller's own process.
 */
import { spawnSync } from 'node:child_process'
import type { IsolationMode, IsolationReport } from '../domain/isolation.js'

/** An argv put in front of every command, and what it gives. */
export interface IsolationPlan {
  prefix: readonly string[]
  report: IsolationReport
}

/** Drops every capability and forbids gaining new ones: the command cannot unmount its /proc to look out. */
const NO_PRIVILEGES = ['--no-new-privs', '--bounding-set=-all', '--inh-caps=-all']
/** A new PID namespace whose first process takes the rest with it when it ends, with /proc remounted for it. */
const NEW_PID_NAMESPACE = ['--pid', '--fork', '--kill-child', '--mount-proc']

/**
 * The namespace's first process. The kernel kills everything in a PID namespace when its first process
 * ends, so the command does not play that part: this shell runs it, passes a SIGTERM on, and after it
 * exits gives what it left running (the `cat` that carries a shell line's output, say) a moment to
 * finish before it ends them all. Builtins only while it counts, so it never counts itself twice.
 */
export const NAMESPACE_INIT = [
  'bash',
  '-c',
  [
    // `<&0`: a background job would otherwise read /dev/null, and the agent's prompt comes on stdin.
    '"$@" <&0 & child=$!',
    "trap 'kill -TERM $child 2>/dev/null' TERM INT",
    'wait $child; code=$?',
    'while kill -0 $child 2>/dev/null; do wait $child; code=$?; done',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash array length, not a template.
    'for _ in $(seq 60); do procs=(/proc/[0-9]*); [ ${#procs[@]} -le 1 ] && break; sleep 0.05; done',
    'exit $code',
  ].join('\n'),
  'loop-namespace-init',
]

interface Candidate {
  prefix: string[]
  how: string
}

function candidates(uid: number, gid: number): Candidate[] {
  const asUser = [`--reuid=${uid}`, `--regid=${gid}`, '--init-groups']
  const list: Candidate[] = []
  if (uid === 0) {
    list.push({
      prefix: ['unshare', ...NEW_PID_NAMESPACE, 'setpriv', ...NO_PRIVILEGES, '--', ...NAMESPACE_INIT],
      how: 'unshare as root',
    })
  } else {
    // GitHub-hosted runners give passwordless sudo: root makes the namespace, the command runs as this user.
    list.push({
      prefix: [
        'sudo',
        '-n',
        '-E',
        'unshare',
        ...NEW_PID_NAMESPACE,
        'setpriv',
        ...asUser,
        ...NO_PRIVILEGES,
        '--',
        ...NAMESPACE_INIT,
      ],
      how: 'sudo unshare, then back to this user',
    })
  }
  list.push({
    prefix: [
      'unshare',
      '--user',
      '--map-current-user',
      ...NEW_PID_NAMESPACE,
      'setpriv',
      ...NO_PRIVILEGES,
      '--',
      ...NAMESPACE_INIT,
    ],
    how: 'an unprivileged user namespace',
  })
  return list
}

/** True when a command run through `prefix` sees its own namespace and not the controller's process. */
function proves(prefix: readonly string[], controllerPid: number): boolean {
  const [file, ...args] = prefix
  if (!file) return false
  const probe = spawnSync(
    file,
    [...args, 'sh', '-c', `test -e /proc/1 && test ! -e /proc/${controllerPid} && echo isolated`],
    { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  return probe.status === 0 && probe.stdout.trim() === 'isolated'
}

/** Unsupported here: every path tried, with the reason the summary gives. */
export class IsolationUnavailableError extends Error {
  override name = 'IsolationUnavailableError'
}

/**
 * The isolation for `mode` on this machine. `auto` takes the first way that proves itself, else none
 * (said loudly by the caller); `pid-namespace` throws when none does; `none` tries nothing.
 */
export function chooseIsolation(mode: IsolationMode, platform: NodeJS.Platform = process.platform): IsolationPlan {
  if (mode === 'none')
    return {
      prefix: [],
      report: { level: 'none', how: 'isolation is set to none', nestedSandbox: platform !== 'linux' || nests([]) },
    }
  if (platform !== 'linux') {
    const how = `PID namespaces are a Linux feature; this is ${platform}`
    if (mode === 'pid-namespace')
      throw new IsolationUnavailableError(`isolation 'pid-namespace' is not available: ${how}.`)
    // Elsewhere an agent CLI's own sandbox (Seatbelt on macOS) needs no user namespace.
    return { prefix: [], report: { level: 'none', how, nestedSandbox: true } }
  }
  const uid = process.getuid?.() ?? 0
  const gid = process.getgid?.() ?? 0
  for (const candidate of candidates(uid, gid)) {
    if (proves(candidate.prefix, process.pid)) {
      const report = { level: 'pid-namespace', how: candidate.how, nestedSandbox: nests(candidate.prefix) } as const
      return { prefix: candidate.prefix, report }
    }
  }
  const how =
    'neither unshare as root, sudo without a password, nor an unprivileged user namespace worked on this runner'
  if (mode === 'pid-namespace')
    throw new IsolationUnavailableError(`isolation 'pid-namespace' is not available: ${how}.`)
  return { prefix: [], report: { level: 'none', how, nestedSandbox: nests([]) } }
}

/** True when a command run through `prefix` can make an unprivileged user namespace of its own. */
function nests(prefix: readonly string[]): boolean {
  const [file, ...args] = [...prefix, 'unshare', '--user', '--map-current-user', 'true']
  if (!file) return false
  const probe = spawnSync(file, args, { timeout: 10_000, stdio: 'ignore' })
  return probe.status === 0
}
