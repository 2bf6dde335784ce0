import { describe, expect, it } from 'vitest'
import { PolicyError, policyFromConfig } from '../../../src/domain/engine/index.js'
import { configOf, policyOf } from './helpers.js'

describe('policyFromConfig', () => {
  it.each([
    ['iterate', ['IMPLEMENT', 'VERIFY', 'COMPLETE']],
    ['full', ['INIT', 'SCAFFOLD', 'IMPLEMENT', 'TEST', 'VERIFY', 'VALIDATE', 'DOCUMENT', 'REVIEW', 'SHIP', 'COMPLETE']],
    [
      ['IMPLEMENT', 'TEST'],
      ['IMPLEMENT', 'TEST', 'COMPLETE'],
    ],
    [
      ['SCAFFOLD', 'VERIFY', 'COMPLETE'],
      ['SCAFFOLD', 'VERIFY', 'COMPLETE'],
    ],
  ] as const)('resolves pipeline %j to %j, always ending in COMPLETE', (pipeline, expected) => {
    expect(policyOf({ pipeline: pipeline as never }).pipeline).toEqual(expected)
  })

  it('refuses max-iterations above 25 without cap-reason, naming the key, the value and the fix', () => {
    expect(() => policyOf({ 'max-iterations': 40 })).toThrow(PolicyError)
    expect(() => policyOf({ 'max-iterations': 40 })).toThrow(/max-iterations is 40, above 25: set cap-reason/)
  })

  it('accepts a cap above 25 with a cap-reason and records it', () => {
    const policy = policyOf({ 'max-iterations': 40, 'cap-reason': 'a large migration, reviewed by the team' })
    expect(policy.maxIterations).toBe(40)
    expect(policy.capReason).toBe('a large migration, reviewed by the team')
  })

  it('accepts 25 without a reason', () => {
    expect(policyOf({ 'max-iterations': 25 }).maxIterations).toBe(25)
  })

  it('maps the retry budget and the budget', () => {
    const policy = policyOf({
      retry: { 'per-failure': 4, 'same-error': 1, total: 7, 'backoff-seconds': 2 },
      budget: { minutes: 90, tokens: 100_000, 'cost-usd': 10 },
    })
    expect(policy.retry).toEqual({ perFailure: 4, sameError: 1, total: 7, backoffSeconds: 2 })
    expect(policy.budget).toEqual({ minutes: 90, tokens: 100_000, costUsd: 10 })
  })

  it('defaults the exit requirements and drops kinds that no required check provides, except build and test', () => {
    const policy = policyOf({
      pipeline: 'full',
      checks: [{ name: 'all', run: 'make check' }],
    })
    // VERIFY waits for every required check: here the one custom check as well.
    expect(policy.exitRequirements.VERIFY).toEqual(['build', 'test', 'custom'])
    expect(policy.exitRequirements.IMPLEMENT).toEqual(['build'])
    expect(policy.exitRequirements.REVIEW).toEqual(['build', 'test', 'approved'])
    expect(policy.exitRequirements.INIT).toBeUndefined()
  })

  it('keeps typecheck and lint when such checks exist', () => {
    expect(policyOf().exitRequirements.VERIFY).toEqual(['build', 'test', 'lint', 'typecheck'])
  })

  it('lets a stage override its requirements with kinds, check names or approved', () => {
    const policy = policyOf({ stages: { VERIFY: { 'required-checks': ['unit', 'lint', 'approved'] } } })
    expect(policy.exitRequirements.VERIFY).toEqual(['unit', 'lint', 'approved'])
    expect(policy.gates).toContainEqual({ name: 'verify', paths: [], atStage: 'VERIFY', required: true })
  })

  it.each([
    [['nonsense'], /stages\.VERIFY\.required-checks: 'nonsense' is neither a check kind/],
    [['security'], /'security' is required, but no required check has kind 'security'/],
  ])('refuses the override %j', (requirements, message) => {
    expect(() => policyOf({ stages: { VERIFY: { 'required-checks': requirements } } })).toThrow(message)
  })

  it('adds an implicit review gate for REVIEW -> SHIP', () => {
    expect(policyOf({ pipeline: 'full' }).gates).toContainEqual({
      name: 'review',
      paths: [],
      atStage: 'REVIEW',
      required: true,
    })
  })

  it('collects stage tasks and refuses a task name used twice', () => {
    const policy = policyOf({
      pipeline: 'full',
      stages: { DOCUMENT: { tasks: [{ name: 'changelog', run: 'make changelog' }] } },
    })
    expect(policy.stageTasks).toEqual({ DOCUMENT: ['changelog'] })
    expect(() =>
      policyOf({
        pipeline: 'full',
        stages: {
          DOCUMENT: { tasks: [{ name: 'docs', run: 'a' }] },
          REVIEW: { tasks: [{ name: 'docs', run: 'b' }] },
        },
      }),
    ).toThrow(/task name 'docs' is already used in stages\.DOCUMENT\.tasks/)
  })

  it('refuses tasks on a stage outside the pipeline', () => {
    expect(() => policyOf({ stages: { DOCUMENT: { tasks: [{ name: 'docs', run: 'a' }] } } })).toThrow(
      /stages\.DOCUMENT\.tasks: the stage DOCUMENT is not in the pipeline \(IMPLEMENT -> VERIFY -> COMPLETE\)/,
    )
  })

  it('refuses a gate that nothing can raise and duplicate capabilities', () => {
    expect(() => policyOf({ gates: [{ name: 'database' }] })).toThrow(/gate 'database' has neither paths nor at-stage/)
    expect(() => policyOf({ capabilities: ['a', { name: 'a' }] })).toThrow(/capabilities: 'a' is listed twice/)
  })

  it('carries the capabilities, checks and the stop switch', () => {
    const policy = policyFromConfig(configOf({ capabilities: ['parse', { name: 'retry' }], stop: true }))
    expect(policy.capabilities).toEqual(['parse', 'retry'])
    expect(policy.checks.map((c) => c.name)).toEqual(['build', 'unit', 'lint', 'types'])
    expect(policy.stop).toBe(true)
  })
})
