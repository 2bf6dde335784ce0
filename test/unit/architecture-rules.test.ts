import { describe, expect, it } from 'vitest'
import {
  checkArchitecture,
  formatLengthReport,
  importsOf,
  layerOf,
  lengthReport,
  MAX_LINES,
  resolveRelative,
} from './architecture-rules.js'

const tree = (files: Record<string, string>) => new Map(Object.entries(files))
const lines = (count: number) => 'export const x = 1\n'.repeat(count)

describe('importsOf', () => {
  it('finds static imports, re-exports, dynamic and type-position imports, with their lines', () => {
    const text = [
      "import { a } from './a.js'",
      "import type { B } from '../b.js'",
      "export { c } from './c.js'",
      "export type { D } from './d.js'",
      "import './side-effect.js'",
      "const e = await import('./e.js')",
      "type F = typeof import('./f.js')",
      "// import { g } from './not-an-import.js'",
      'const text = "import { h } from \'./not-either.js\'"',
      'const i = await import(name)',
      'export const j = 1',
    ].join('\n')
    expect(importsOf('src/x.ts', text)).toEqual([
      { specifier: './a.js', line: 1, typeOnly: false },
      { specifier: '../b.js', line: 2, typeOnly: true },
      { specifier: './c.js', line: 3, typeOnly: false },
      { specifier: './d.js', line: 4, typeOnly: true },
      { specifier: './side-effect.js', line: 5, typeOnly: false },
      { specifier: './e.js', line: 6, typeOnly: false },
      { specifier: './f.js', line: 7, typeOnly: true },
      { specifier: '<computed: name>', line: 10, typeOnly: false },
    ])
  })
})

describe('resolveRelative', () => {
  const files = new Set(['src/domain/state.ts', 'src/adapters/stores/index.ts', 'src/config/patterns.yml'])
  it.each([
    { from: 'src/domain/engine/decide.ts', specifier: '../state.js', to: 'src/domain/state.ts' },
    { from: 'src/main.ts', specifier: './adapters/stores/index.js', to: 'src/adapters/stores/index.ts' },
    { from: 'src/main.ts', specifier: './adapters/stores', to: 'src/adapters/stores/index.ts' },
    { from: 'src/domain/state.ts', specifier: '../config/patterns.yml', to: 'src/config/patterns.yml' },
    { from: 'src/domain/x.ts', specifier: '../../package.json', to: 'package.json' },
    { from: 'src/domain/x.ts', specifier: './missing.js', to: 'src/domain/missing.ts' },
  ])('$from: $specifier → $to', ({ from, specifier, to }) => {
    expect(resolveRelative(from, specifier, files)).toBe(to)
  })
})

describe('layerOf', () => {
  it.each([
    ['src/domain/engine/decide.ts', 'domain'],
    ['src/app/iteration.ts', 'app'],
    ['src/ports/git.ts', 'ports'],
    ['src/adapters/stores/git-store.ts', 'adapters'],
    ['src/config/loop-config.ts', 'config'],
    ['src/main.ts', 'composition root'],
    ['src/index.ts', 'composition root'],
    ['src/cli.ts', 'composition root'],
    ['src/cli-entry.ts', 'composition root'],
    ['src/action/run.ts', 'composition root'],
    ['src/cli/status.ts', 'composition root'],
    ['src/constants.ts', 'other'],
    ['src/domainish.ts', 'other'],
  ])('%s is %s', (file, layer) => {
    expect(layerOf(file)).toBe(layer)
  })
})

describe('checkArchitecture', () => {
  const obeying: Array<{ title: string; files: Record<string, string> }> = [
    {
      title: 'domain importing domain, a pure built-in and pure packages',
      files: {
        'src/domain/state.ts': "import { z } from 'zod'\nimport { RE2JS } from 're2js'\nexport const s = 1",
        'src/domain/engine/decide.ts': "import { s } from '../state.js'\nimport { createHash } from 'node:crypto'",
      },
    },
    {
      title: 'app importing domain, ports and config',
      files: {
        'src/app/iteration.ts':
          "import type { Git } from '../ports/git.js'\nimport { decide } from '../domain/engine/index.js'\nimport { messageOf } from '../config/errors.js'\nimport { join } from 'node:path'",
      },
    },
    {
      title: 'ports importing domain types',
      files: { 'src/ports/store.ts': "import type { LoopState } from '../domain/state.js'" },
    },
    {
      title: 'adapters and composition roots importing anything',
      files: {
        'src/adapters/git-cli.ts': "import { spawn } from 'node:child_process'\nimport '../app/iteration.js'",
        'src/main.ts':
          "import * as core from '@actions/core'\nimport { GitCli } from './adapters/git-cli.js'\nconst s = await import('./adapters/stores/index.js')",
      },
    },
    { title: 'a file of exactly the limit', files: { 'src/domain/long.ts': lines(MAX_LINES) } },
    {
      title: 'files outside src/',
      files: { 'test/unit/x.ts': `import '../../src/adapters/git-cli.js'\n${lines(900)}` },
    },
  ]

  it.each(obeying)('accepts $title', ({ files }) => {
    expect(checkArchitecture(tree(files))).toEqual([])
  })

  const breaking: Array<{ title: string; files: Record<string, string>; rule: RegExp; message: RegExp }> = [
    {
      title: 'domain importing config',
      files: { 'src/domain/policy.ts': "import type { LoopConfig } from '../config/loop-config.js'" },
      rule: /^domain imports only domain/,
      message:
        /^src\/domain\/policy\.ts:1: type-only import '\.\.\/config\/loop-config\.js' \(resolves to src\/config\/loop-config\.ts, config\)/,
    },
    {
      title: 'domain importing ports',
      files: { 'src/domain/migrations.ts': "\nimport { StateFromTheFutureError } from '../ports/store.js'" },
      rule: /^domain imports only domain/,
      message:
        /^src\/domain\/migrations\.ts:2: import '\.\.\/ports\/store\.js' \(resolves to src\/ports\/store\.ts, ports\)/,
    },
    {
      title: 'domain importing an adapter',
      files: { 'src/domain/x.ts': "export { GitCli } from '../adapters/git-cli.js'" },
      rule: /^domain imports only domain/,
      message: /adapters/,
    },
    {
      title: 'domain importing a top-level module of src/',
      files: { 'src/domain/report/comment.ts': "import { Labels } from '../../constants.js'" },
      rule: /^domain imports only domain/,
      message: /resolves to src\/constants\.ts, other/,
    },
    {
      title: 'domain importing app through a dynamic import',
      files: { 'src/domain/x.ts': "const m = await import('../app/iteration.js')" },
      rule: /^domain imports only domain/,
      message: /src\/app\/iteration\.ts, app/,
    },
    ...['node:fs', 'node:fs/promises', 'node:child_process', 'node:os', 'node:process', 'fs', 'node:path'].map(
      (builtin) => ({
        title: `domain importing the built-in ${builtin}`,
        files: { 'src/domain/x.ts': `import * as m from '${builtin}'` },
        rule: /^domain imports only domain/,
        message: new RegExp(`'${builtin}' \\(a Node built-in not among the pure ones: node:crypto\\)`),
      }),
    ),
    {
      title: 'domain importing an impure package',
      files: { 'src/domain/x.ts': "import * as core from '@actions/core/lib/core.js'" },
      rule: /^domain imports only domain/,
      message: /a package not among the pure ones: zod, re2js/,
    },
    {
      title: 'domain importing a module named at run time',
      files: { 'src/domain/x.ts': 'const m = await import(name)' },
      rule: /^domain imports name their module literally/,
      message: /<computed: name>/,
    },
    {
      title: 'app importing an adapter (even for a type)',
      files: { 'src/app/people-commands.ts': "import type { AuditTrail } from '../adapters/audit-trail.js'" },
      rule: /^app reaches the world only through ports/,
      message: /^src\/app\/people-commands\.ts:1: type-only import '\.\.\/adapters\/audit-trail\.js'/,
    },
    {
      title: 'app importing the signs from the git adapter',
      files: { 'src/app/loop-branch.ts': "import { CONFLICT_SIGNS } from '../adapters/git-cli.js'" },
      rule: /^app reaches the world only through ports/,
      message: /src\/adapters\/git-cli\.ts, adapters/,
    },
    {
      title: 'app importing a composition root',
      files: { 'src/app/x.ts': "import { run } from '../main.js'" },
      rule: /^app reaches the world only through ports/,
      message: /src\/main\.ts, composition root/,
    },
    {
      title: 'app importing the CLI folder',
      files: { 'src/app/x.ts': "import { status } from '../cli/status.js'" },
      rule: /^app reaches the world only through ports/,
      message: /src\/cli\/status\.ts, composition root/,
    },
    {
      title: 'app reading files itself',
      files: { 'src/app/x.ts': "import { readFile } from 'node:fs/promises'" },
      rule: /^app reaches the world only through ports/,
      message: /a Node built-in not among the pure ones: node:path, node:crypto/,
    },
    {
      title: 'app starting a process itself (bare built-in name)',
      files: { 'src/app/x.ts': "import { spawn } from 'child_process'" },
      rule: /^app reaches the world only through ports/,
      message: /a Node built-in not among the pure ones/,
    },
    {
      title: 'ports importing an adapter',
      files: { 'src/ports/git.ts': "export { GitCli } from '../adapters/git-cli.js'" },
      rule: /^ports import no adapters/,
      message: /^src\/ports\/git\.ts:1: import '\.\.\/adapters\/git-cli\.js'/,
    },
    {
      title: 'ports importing app',
      files: { 'src/ports/x.ts': "import type { Outcome } from '../app/iteration.js'" },
      rule: /^ports import no adapters, no app/,
      message: /src\/app\/iteration\.ts, app/,
    },
    {
      title: 'a file one line over the limit',
      files: { 'src/adapters/long.ts': lines(MAX_LINES + 1) },
      rule: /^source files stay at 450 lines or fewer$/,
      message: new RegExp(`^src/adapters/long\\.ts has ${MAX_LINES + 1} lines`),
    },
  ]

  it.each(breaking)('refuses $title', ({ files, rule, message }) => {
    const violations = checkArchitecture(tree(files))
    expect(violations).toHaveLength(1)
    expect(violations[0]!.file).toBe(Object.keys(files)[0])
    expect(violations[0]!.rule).toMatch(rule)
    expect(violations[0]!.message).toMatch(message)
    expect(violations[0]!.message).toContain(violations[0]!.rule)
  })
})

describe('lengthReport', () => {
  it('lists the longest source files of src/, longest first, and counts those over 400 lines', () => {
    const report = lengthReport(
      tree({
        'src/a.ts': lines(401),
        'src/b/c.ts': lines(12),
        'src/d.ts': lines(500),
        'src/config/patterns.yml': lines(900),
        'test/e.ts': lines(999),
        'src/f.ts': lines(400),
      }),
      3,
    )
    expect(report).toEqual({
      longest: [
        { file: 'src/d.ts', lines: 500 },
        { file: 'src/a.ts', lines: 401 },
        { file: 'src/f.ts', lines: 400 },
      ],
      over400: 2,
    })
    expect(formatLengthReport(report)).toBe(
      [
        'The 3 longest files in src/ (limit 450 lines):',
        '  500  src/d.ts',
        '  401  src/a.ts',
        '  400  src/f.ts',
        'Files over 400 lines: 2',
      ].join('\n'),
    )
  })
})
