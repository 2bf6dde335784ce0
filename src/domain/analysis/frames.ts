/**
 * Which locations matter: a stack trace names the runtime, the test runner and third-party code as
 * often as the project, and the frame that leads to a bug is the project's own source, not the test
 * that noticed it. Pure.
 */
import type { Location } from '../state.js'

/**
 * Code the project does not own: Node's internals, installed packages, a language's standard library
 * (GOROOT, CPython's lib/pythonX.Y, rustc's sources), the Go module cache. A GOPATH project lives under
 * `…/go/src/` too, so only the usual GOROOT install places count.
 */
const LIBRARY_FILE = new RegExp(
  [
    '^node:',
    '^internal/',
    '(?:^|/)node_modules/',
    '^/rustc/',
    '/\\.cargo/registry/',
    '/\\.rustup/toolchains/',
    '^/usr/(?:local/)?lib/go[^/]*/src/',
    '^/usr/local/go/src/',
    '/hostedtoolcache/go/',
    '/sdk/go[0-9.]+/src/',
    '/go/pkg/mod/',
    '(?:^|/)lib/python[0-9.]*/',
    '(?:^|/)(?:site|dist)-packages/',
    '(?:^|/)_pytest/',
    '(?:^|/)pluggy/',
    '^/usr/lib/jvm/',
  ].join('|'),
)

/** Test files by the naming conventions of the common runners (jest, vitest, node:test, mocha, pytest, go, rspec, JUnit). */
const TEST_FILE =
  /(?:^|\/)(?:tests?|__tests__|spec|specs)\/|\.(?:test|spec)\.[cm]?[jt]sx?$|_test\.go$|(?:^|\/)test_[^/]*\.py$|_test\.py$|_spec\.rb$|Tests?\.(?:java|kt|cs)$/

export function isLibraryFile(file: string): boolean {
  return LIBRARY_FILE.test(file.replace(/\\/g, '/'))
}

export function isTestFile(file: string): boolean {
  return TEST_FILE.test(file.replace(/\\/g, '/'))
}

/**
 * The locations worth showing, in the order worth reading: library frames dropped, then the project's
 * own source before its test files (each group in output order). When every location is a library
 * frame, they are kept: a lead into a dependency beats none.
 */
export function rankLocations(locations: readonly Location[]): Location[] {
  const own = locations.filter((location) => !isLibraryFile(location.file))
  const kept = own.length > 0 ? own : [...locations]
  const source = kept.filter((location) => !isTestFile(location.file))
  const tests = kept.filter((location) => isTestFile(location.file))
  return [...source, ...tests]
}
