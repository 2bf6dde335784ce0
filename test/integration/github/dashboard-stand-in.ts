// What the dashboard's integration tests share: the REST and GraphQL stand-in (started per test, its
// violations asserted empty after), the adapter as a given token, a store over plain states and a logger.
import { afterEach, beforeEach, expect } from 'vitest'
import { OctokitDashboardIssues } from '../../../src/adapters/dashboard-issue.js'
import { createOctokit } from '../../../src/adapters/github-client.js'
import type { LoopState } from '../../../src/domain/state.js'
import type { Loaded, LoopReader, Store } from '../../../src/ports/store.js'
import { type RestApi, startRestApi } from '../../sandbox/rest-api.js'

export const BOT = 'github-actions[bot]'
export const REPOSITORY_URL = 'https://github.com/acme/demo'
/** The stand-in of the running test (a live binding: each test starts its own). */
export let api: RestApi

/** Starts the stand-in before each test of the calling file and stops it after, asserting no violation. */
export function useDashboardStandIn(): void {
  beforeEach(async () => {
    api = await startRestApi({
      owner: 'acme',
      repo: 'demo',
      users: { alice: 'write' },
      tokens: {
        job: { actor: BOT, kind: 'installation', permissions: { issues: 'write' } },
        alice: { actor: 'alice', kind: 'user', permissions: { issues: 'write' } },
      },
    })
  })
  afterEach(async () => {
    expect(api.violations).toEqual([])
    await api.stop()
  })
}

export function issuesAs(token: string): OctokitDashboardIssues {
  const octokit = createOctokit({ token, owner: 'acme', repo: 'demo', baseUrl: api.url, retries: 0, throttle: false })
  return new OctokitDashboardIssues(octokit, 'acme', 'demo')
}

/** The loops a store holds (a read-only listing is all the dashboard asks of it; load for the ticks' commands). */
export function storeOf(states: Map<string, LoopState>): Pick<Store, 'load'> & LoopReader {
  return {
    load: async (loopId): Promise<Loaded | null> => {
      const state = states.get(loopId)
      return state ? { state, version: state.updatedAt } : null
    },
    readLoops: async () => [...states.entries()].map(([loopId, state]) => ({ loopId, state })),
  }
}

/** What the logger below was told, in order; a test empties it before it reads it. */
export const logged: string[] = []
export const logger = {
  info: (m: string) => void logged.push(m),
  warning: (m: string) => void logged.push(`warning: ${m}`),
}
