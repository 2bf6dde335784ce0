#!/usr/bin/env bash
# Captures test failures whose bug lives in a source file the failing test imports, for the location
# ranking tests (test/unit/analysis/frames.test.ts and the manifest): node:test (TAP and spec), vitest,
# pytest and a Go panic. Real output, nothing typed by hand; paths under $FXWORK stay absolute on purpose.
#
#   scripts/capture-frame-fixtures.sh
#
# Needs: node, the project's vitest (node_modules), python3 with pytest, go.
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/test/fixtures"
WORK="${FXWORK:-/tmp/ctxcap}"
export NO_COLOR=1 FORCE_COLOR=0 CI=1 TERM=dumb LANG=C.UTF-8 LC_ALL=C.UTF-8
rm -rf "$WORK" && mkdir -p "$WORK"

PRICE_JS='// Prices in cents.
export function applyDiscount(total, percent) {
  if (percent < 0 || percent > 100) throw new RangeError('"'"'percent out of range'"'"')
  return total - Math.round((total * percent) / 1000)
}

export function priceWithTax(net, rate) {
  const cents = Math.round(net * (1 + rate))
  if (Number.isNaN(cents)) throw new TypeError(`bad price: ${net}`)
  return cents
}'

mkdir -p "$WORK/js/src" "$WORK/js/test" && cd "$WORK/js" || exit 1
echo '{"name":"shop","type":"module","private":true}' >package.json
printf '%s\n' "$PRICE_JS" >src/price.js
cat >test/price.test.js <<'EOF'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { applyDiscount, priceWithTax } from '../src/price.js'

test('applyDiscount takes ten percent off', () => {
  assert.equal(applyDiscount(1000, 10), 900)
})

test('priceWithTax rejects a bad price', () => {
  assert.equal(priceWithTax('x', 0.2), 0)
})

test('priceWithTax adds the tax', () => {
  assert.equal(priceWithTax(100, 0.2), 120)
})
EOF
node --test test/ >"$OUT/test-failure/node-test-source-frame.txt" 2>&1
node --test --test-reporter=spec test/ >"$OUT/test-failure/node-test-spec.txt" 2>&1

mkdir -p "$WORK/vt/src" "$WORK/vt/test" && cd "$WORK/vt" || exit 1
echo '{"name":"shopvt","type":"module","private":true}' >package.json
echo 'export default {}' >vitest.config.mjs
printf '%s\n' "$PRICE_JS" >src/price.ts
cat >test/price.test.ts <<'EOF'
import { expect, test } from 'vitest'
import { applyDiscount, priceWithTax } from '../src/price.js'

test('applyDiscount takes ten percent off', () => {
  expect(applyDiscount(1000, 10)).toBe(900)
})

test('priceWithTax rejects a bad price', () => {
  expect(priceWithTax('x' as unknown as number, 0.2)).toBe(0)
})
EOF
"$ROOT/node_modules/.bin/vitest" run >"$OUT/test-failure/vitest-source-frame.txt" 2>&1

mkdir -p "$WORK/py/shop" "$WORK/py/tests" && cd "$WORK/py" || exit 1
: >shop/__init__.py
cat >shop/price.py <<'EOF'
"""Prices in cents."""


def apply_discount(total, percent):
    if percent < 0 or percent > 100:
        raise ValueError("percent out of range")
    return total - round(total * percent / 1000)


def price_with_tax(net, rate):
    cents = round(net * (1 + rate))
    return int(cents)
EOF
cat >tests/test_price.py <<'EOF'
from shop.price import apply_discount, price_with_tax


def test_apply_discount():
    assert apply_discount(1000, 10) == 900


def test_price_with_tax_rejects_bad_price():
    assert price_with_tax("x", 0.2) == 0
EOF
python3 -m pytest -p no:cacheprovider tests >"$OUT/test-failure/pytest-source-frame.txt" 2>&1

mkdir -p "$WORK/go" && cd "$WORK/go" || exit 1
printf 'module example.com/shop\n\ngo 1.19\n' >go.mod
cat >price.go <<'EOF'
// Package shop computes prices in cents.
package shop

// ApplyDiscount takes percent off total.
func ApplyDiscount(total, percent int) int {
	return total - total*percent/1000
}

// Share splits total among n people.
func Share(total, n int) int {
	return total / n
}
EOF
cat >price_test.go <<'EOF'
package shop

import "testing"

func TestApplyDiscount(t *testing.T) {
	if got := ApplyDiscount(1000, 10); got != 900 {
		t.Errorf("ApplyDiscount(1000, 10) = %d; want 900", got)
	}
}

func TestShare(t *testing.T) {
	zero := 0
	if got := Share(100, zero); got != 0 {
		t.Errorf("Share = %d", got)
	}
}
EOF
GOCACHE="$WORK/gocache" go test ./... >"$OUT/test-failure/go-test-panic.txt" 2>&1
echo "captured into $OUT/test-failure"
