#!/usr/bin/env bash
# Captures one small project with three failing tests (a wrong number, a wrong object, a thrown error) as
# jest, vitest, node:test (TAP and spec), pytest and go test print it, for the excerpt tests
# (test/unit/analysis/excerpt.test.ts): the excerpt must name each failing test and show what it received.
# Real output, nothing typed by hand; paths under $FXWORK stay absolute on purpose.
#
#   scripts/capture-excerpt-fixtures.sh
#
# Needs: node, jest ($JEST, by default the real-project suite's jest 30), the project's vitest
# (node_modules), python3 with pytest, go.
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/test/fixtures/test-failure"
WORK="${FXWORK:-/tmp/excerptcap}"
JEST="${JEST:-$HOME/.cache/loop-real-projects/jest/node_modules/.bin/jest}"
export NO_COLOR=1 FORCE_COLOR=0 CI=1 TERM=dumb LANG=C.UTF-8 LC_ALL=C.UTF-8
rm -rf "$WORK" && mkdir -p "$WORK" "$OUT"

CART_JS='const total = (xs) => xs.reduce((a, b) => a + b, 1)
const summary = (xs) => ({ count: xs.length, sum: total(xs) })
const parse = (s) => { if (!/^\d+$/.test(s)) throw new TypeError(`not a price: ${s}`); return Number(s) }'

mkdir -p "$WORK/jest" && cd "$WORK/jest" || exit 1
echo '{"name":"cart","private":true}' >package.json
cat >cart.test.js <<EOF
$CART_JS
describe('cart', () => {
  test('adds the prices', () => { expect(total([1, 2, 3])).toBe(6) })
  test('summarises the items', () => { expect(summary([2, 3])).toEqual({ count: 2, sum: 5 }) })
  test('parses a price', () => { expect(parse('12 ')).toBe(12) })
})
EOF
"$JEST" --ci --rootDir . >"$OUT/jest-cart.txt" 2>&1

mkdir -p "$WORK/vitest/test" && cd "$WORK/vitest" || exit 1
echo '{"name":"cart","type":"module","private":true}' >package.json
ln -s "$ROOT/node_modules" node_modules
{ echo "import { describe, expect, test } from 'vitest'"; cat "$WORK/jest/cart.test.js"; } >test/cart.test.js
node_modules/.bin/vitest run --reporter=default test/cart.test.js >"$OUT/vitest-cart.txt" 2>&1

mkdir -p "$WORK/node" && cd "$WORK/node" || exit 1
cat >cart.test.mjs <<EOF
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
$CART_JS
describe('cart', () => {
  test('adds the prices', () => { assert.equal(total([1, 2, 3]), 6) })
  test('summarises the items', () => { assert.deepEqual(summary([2, 3]), { count: 2, sum: 5 }) })
  test('parses a price', () => { assert.equal(parse('12 '), 12) })
})
EOF
node --test --test-reporter=tap cart.test.mjs >"$OUT/node-test-cart.txt" 2>&1
node --test --test-reporter=spec cart.test.mjs >"$OUT/node-test-spec-cart.txt" 2>&1

mkdir -p "$WORK/py/tests" && cd "$WORK/py" || exit 1
cat >tests/test_cart.py <<'EOF'
def total(xs):
    return sum(xs, 1)


def summary(xs):
    return {"count": len(xs), "sum": total(xs)}


def parse(s):
    if not s.isdigit():
        raise ValueError(f"not a price: {s!r}")
    return int(s)


def test_adds_the_prices():
    assert total([1, 2, 3]) == 6


def test_summarises_the_items():
    assert summary([2, 3]) == {"count": 2, "sum": 5}


def test_parses_a_price():
    assert parse("12 ") == 12
EOF
python3 -m pytest -q -p no:cacheprovider tests >"$OUT/pytest-cart.txt" 2>&1

mkdir -p "$WORK/go" && cd "$WORK/go" || exit 1
printf 'module example.com/cart\n\ngo 1.19\n' >go.mod
cat >cart.go <<'EOF'
package cart

import "fmt"

func Total(xs []int) int {
	t := 1
	for _, x := range xs {
		t += x
	}
	return t
}

type Summary struct{ Count, Sum int }

func Summarise(xs []int) Summary { return Summary{len(xs), Total(xs)} }

func Parse(s string) (int, error) {
	var n int
	if _, err := fmt.Sscanf(s, "%d", &n); err != nil {
		return 0, err
	}
	return n, nil
}
EOF
cat >cart_test.go <<'EOF'
package cart

import "testing"

func TestTotal(t *testing.T) {
	if got := Total([]int{1, 2, 3}); got != 6 {
		t.Errorf("Total([1 2 3]) = %d; want 6", got)
	}
}

func TestSummarise(t *testing.T) {
	want := Summary{Count: 2, Sum: 5}
	if got := Summarise([]int{2, 3}); got != want {
		t.Errorf("Summarise([2 3]) = %+v; want %+v", got, want)
	}
}

func TestParse(t *testing.T) {
	n, err := Parse("x12")
	if err != nil {
		t.Fatalf("Parse(\"x12\"): %v", err)
	}
	if n != 12 {
		t.Errorf("Parse = %d; want 12", n)
	}
}
EOF
go test ./... >"$OUT/go-test-cart.txt" 2>&1

echo "fixtures written to $OUT"
