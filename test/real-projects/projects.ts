/**
 * The real projects of issue 17's proof: each a small open-source project at a pinned upstream commit,
 * kept here only as a small source tarball with its license, broken four ways by a committed patch.
 * The defect list is for the harness's report only: the oracle agent never sees it.
 */

export type DefectKind = 'type' | 'lint' | 'import' | 'logic'

export interface Defect {
  kind: DefectKind
  /** The file the defect patch changes for this defect. */
  file: string
  /** The check of the loop config that reports it; for lint defects, a check with a `fix:` command. */
  check: string
  what: string
}

export interface RealProject {
  name: string
  ecosystem: 'typescript' | 'python' | 'go'
  upstream: string
  commit: string
  license: string
  /** Commands that must be on the PATH for the loop's checks. */
  commands: string[]
  /** Debian packages that provide them (installed on demand when running as root with apt-get). */
  apt: string[]
  /** npm packages installed into a cache directory and linked as the project's node_modules. */
  npm?: Record<string, string>
  /** Python modules the project's tests import, checked with `python3 -c "import ..."`. */
  pythonModules?: string[]
  /**
   * Run on the unpacked upstream before anything else: upstream files the Debian or npm tool versions
   * format differently are formatted once, so the pristine copy passes every check.
   */
  normalize: string[]
  defects: Defect[]
}

export const PROJECTS: RealProject[] = [
  {
    name: 'ufo',
    ecosystem: 'typescript',
    upstream: 'unjs/ufo',
    commit: '11308c0bb5cb4a4bc3bfcbdc5c03177b097423e6',
    license: 'MIT',
    commands: ['node', 'npm', 'git'],
    apt: [],
    npm: {
      '@types/node': '^25.0.8',
      eslint: '^9.39.2',
      'eslint-config-unjs': '^0.6.2',
      prettier: '^3.7.4',
      typescript: '^5.9.3',
      vitest: '^4.0.17',
    },
    normalize: ['prettier -w src test'],
    defects: [
      { kind: 'type', file: 'src/encoding.ts', check: 'types', what: 'decode returns string | number' },
      { kind: 'lint', file: 'src/query.ts', check: 'lint', what: 'let never reassigned (prefer-const)' },
      { kind: 'import', file: 'src/url.ts', check: 'types', what: 'the import of ./utils removed' },
      {
        kind: 'logic',
        file: 'src/utils.ts',
        check: 'test',
        what: 'withTrailingSlash drops a single query part; tests in test/trailing-slash.test.ts',
      },
    ],
  },
  {
    name: 'semver',
    ecosystem: 'python',
    upstream: 'python-semver/python-semver',
    commit: 'd8813b67a2ec5d579365f51a6d8f96d02f3fcbc3',
    license: 'BSD-3-Clause',
    commands: ['python3', 'mypy', 'flake8', 'autoflake', 'black', 'git'],
    apt: ['python3-pytest', 'python3-pytest-cov', 'python3-packaging', 'mypy', 'flake8', 'autoflake', 'black'],
    pythonModules: ['pytest', 'pytest_cov', 'packaging'],
    normalize: ['black -q src'],
    defects: [
      { kind: 'type', file: 'src/semver/_deprecated.py', check: 'types', what: 'compare() annotated -> str' },
      { kind: 'lint', file: 'src/semver/_types.py', check: 'lint', what: 'unused import os (F401)' },
      { kind: 'import', file: 'src/semver/cli.py', check: 'types', what: 'import sys removed' },
      {
        kind: 'logic',
        file: 'src/semver/version.py',
        check: 'test',
        what: 'bump_minor keeps the patch; tests in tests/test_bump.py',
      },
    ],
  },
  {
    name: 'humanize',
    ecosystem: 'go',
    upstream: 'dustin/go-humanize',
    commit: '4d1d9082551ec085912e7d2253a33ae547fca000',
    license: 'MIT',
    commands: ['go', 'gofmt', 'git'],
    apt: ['golang-go'],
    normalize: ['gofmt -w .'],
    defects: [
      { kind: 'type', file: 'ordinals.go', check: 'build', what: 'strconv.FormatInt(int)' },
      { kind: 'lint', file: 'times.go', check: 'format', what: 'a const block not gofmt-aligned' },
      { kind: 'import', file: 'bytes.go', check: 'build', what: 'import "strings" removed' },
      {
        kind: 'logic',
        file: 'comma.go',
        check: 'test',
        what: "Comma puts '-' before positive numbers; the failing line is in common_test.go",
      },
    ],
  },
]
