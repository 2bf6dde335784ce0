#!/usr/bin/env bash
# Captures the HELD-OUT set into test/fixtures-heldout/<pattern-id>/<tool>.txt: real output of the tools
# the pattern library was widened for (issue 17: Go, make, Maven, Gradle, ESLint's formatters, vitest and
# jest suites, pytest collection), from other programs and other errors than the training fixtures of
# scripts/capture-fixtures.sh, captured after the patterns were written and never used to tune them.
# test/fixtures-heldout/manifest.json holds the expected pattern of each, decided before the capture;
# `npm run bench -- 11.` (bench/heldout-accuracy.ts) scores it against the 95% budget.
#
#   scripts/capture-heldout.sh            # all
#   scripts/capture-heldout.sh "" "go-vet-nilfunc make-vet"   # some
#
# Round 3 (this script): round 1 scored 30/37 = 81.1% and round 2 28/33 = 84.8% (both in git history); each
# time the patterns were improved on new TRAINING fixtures only, and a fresh set of other programs and
# errors was written (expectations committed first) and then captured.
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/test/fixtures-heldout"
ONLY="${1:-}"
ONLY_TOOL="${2:-}"
FXWORK="${FXWORK:-/tmp/loop-heldout}"
# shellcheck source=scripts/fixture-capture-lib.sh
source "$ROOT/scripts/fixture-capture-lib.sh"
gomod() { printf 'module example.com/shop\n\ngo 1.19\n' >"$1/go.mod"; }

# ---------------------------------------------------------------- go vet
d=$(proj vet-printf-type) && gomod "$d"
printf 'package main\n\nimport "fmt"\n\nfunc main() {\n\tcount := 42\n\tfmt.Printf("%%s items\\n", count)\n}\n' >"$d/main.go"
cap lint-error go-vet-printf-wrong-type "$d" go vet ./...
d=$(proj vet-copylocks) && gomod "$d" && mkdir -p "$d/store"
printf 'package store\n\nimport "sync"\n\ntype Counter struct {\n\tmu sync.Mutex\n\tn  int\n}\n\nfunc Read(c Counter) int { return c.n }\n' >"$d/store/counter.go"
cap lint-error go-vet-copylocks "$d" go vet ./...
d=$(proj vet-unreachable) && gomod "$d"
printf 'package shop\n\nfunc Fee(total int) int {\n\treturn total / 100\n\ttotal++\n\treturn total\n}\n' >"$d/fee.go"
cap lint-error go-vet-unreachable "$d" go vet ./...
d=$(proj vet-selfassign) && gomod "$d"
printf 'package shop\n\nfunc Clamp(n int) int {\n\tif n < 0 {\n\t\tn = n\n\t}\n\treturn n\n}\n' >"$d/clamp.go"
cap lint-error go-vet-self-assign "$d" go vet ./...
d=$(proj vet-lostcancel) && gomod "$d"
printf 'package shop\n\nimport "context"\n\nfunc Start() context.Context {\n\tctx, _ := context.WithCancel(context.Background())\n\treturn ctx\n}\n' >"$d/start.go"
cap lint-error go-vet-lostcancel "$d" go vet ./...

# ---------------------------------------------------------------- go build
d=$(proj go-return-count) && gomod "$d"
printf 'package main\n\nfunc split() int {\n\treturn 1, 2\n}\n\nfunc main() { _ = split() }\n' >"$d/main.go"
cap build-error go-build-too-many-returns "$d" go build ./...
d=$(proj go-assign-type) && gomod "$d"
printf 'package main\n\nimport "strings"\n\nfunc main() {\n\tparts := strings.Split("a,b", ",")\n\tvar n int = parts\n\t_ = n\n}\n' >"$d/main.go"
cap type-error go-build-assign-type "$d" go build ./...
d=$(proj go-undef-local) && gomod "$d" && mkdir -p "$d/cart"
printf 'package cart\n\nfunc Sum(xs []int) int {\n\tfor _, x := range xs {\n\t\ttotal += x\n\t}\n\treturn 0\n}\n' >"$d/cart/sum.go"
cap build-error go-build-undefined-local "$d" go build ./...
d=$(proj go-eof) && gomod "$d"
printf 'package main\n\nfunc main() {\n\tif true {\n}\n' >"$d/main.go"
cap syntax-error go-build-unexpected-eof "$d" go build ./...
d=$(proj go-unused-import) && gomod "$d"
printf 'package main\n\nimport (\n\t"fmt"\n\t"os"\n)\n\nfunc main() { fmt.Println("hi") }\n' >"$d/main.go"
cap build-error go-build-unused-import "$d" go build ./...
d=$(proj go-replace) && mkdir -p "$d/app"
printf 'module example.com/app\n\ngo 1.19\n\nrequire example.com/lib v1.0.0\n\nreplace example.com/lib => ../lib\n' >"$d/app/go.mod"
printf 'package main\n\nimport "example.com/lib"\n\nfunc main() { lib.Run() }\n' >"$d/app/main.go"
cap import-not-found go-mod-replace-missing "$d/app" go build ./...
d=$(proj go-xexp) && gomod "$d"
printf 'package main\n\nimport "golang.org/x/exp/slices"\n\nfunc main() { _ = slices.Contains([]int{1}, 1) }\n' >"$d/main.go"
cap import-not-found go-build-module-not-required "$d" go build ./...

# ---------------------------------------------------------------- go test and gofmt
d=$(proj go-table) && gomod "$d" && mkdir -p "$d/discount"
printf 'package discount\n\n// Apply takes pct percent off.\nfunc Apply(price, pct int) int { return price - pct }\n' >"$d/discount/apply.go"
printf 'package discount\n\nimport "testing"\n\nfunc TestApply(t *testing.T) {\n\tcases := []struct{ price, pct, want int }{{200, 10, 180}, {100, 50, 50}}\n\tfor _, c := range cases {\n\t\tif got := Apply(c.price, c.pct); got != c.want {\n\t\t\tt.Errorf("Apply(%%d, %%d) = %%d, want %%d", c.price, c.pct, got, c.want)\n\t\t}\n\t}\n}\n' >"$d/discount/apply_test.go"
cap test-failure go-test-table "$d" go test ./...
d=$(proj go-test-timeout) && gomod "$d"
printf 'package shop\n\nimport (\n\t"testing"\n\t"time"\n)\n\nfunc TestSlow(t *testing.T) {\n\ttime.Sleep(3 * time.Second)\n}\n' >"$d/slow_test.go"
cap test-failure go-test-own-timeout "$d" go test -timeout 1s ./...
d=$(proj go-test-type) && gomod "$d"
printf 'package shop\n\nfunc Label(n int) string { return "n" }\n' >"$d/label.go"
printf 'package shop\n\nimport "testing"\n\nfunc TestLabel(t *testing.T) {\n\tif Label("3") != "n" {\n\t\tt.Fail()\n\t}\n}\n' >"$d/label_test.go"
cap type-error go-test-arg-type "$d" go test ./...
d=$(proj gofmt-deep) && gomod "$d" && mkdir -p "$d/internal/http/handlers"
printf 'package handlers\n\nfunc Ping() string {\nreturn "pong"\n}\n' >"$d/internal/http/handlers/ping.go"
cap format-error gofmt-l-nested "$d" gofmt -l .

# ---------------------------------------------------------------- make around other tools
d=$(proj make-prereq)
printf 'app: main.o util.o\n\tcc -o app main.o util.o\n' >"$d/Makefile"
cap build-error make-missing-prerequisite "$d" make app
d=$(proj make-fmt) && gomod "$d"
printf 'package main\n\nfunc main()  {}\n' >"$d/main.go"
printf 'fmt-check:\n\tgofmt -l . && test -z "$$(gofmt -l .)"\n' >"$d/Makefile"
cap format-error make-gofmt-check "$d" make fmt-check
d=$(proj make-pytest) && mkdir -p "$d/tests"
printf 'def test_vat():\n    assert round(100 * 1.2) == 121\n' >"$d/tests/test_vat.py"
printf 'test:\n\tpython3 -m pytest -q -p no:cacheprovider tests\n' >"$d/Makefile"
cap test-failure make-pytest "$d" make test
d=$(proj make-eslint) && mkdir -p "$d/src" && ln -s "$FXTOOLS/node_modules" "$d/node_modules"
printf 'import js from "@eslint/js"\nexport default [js.configs.recommended]\n' >"$d/eslint.config.mjs"
printf 'export function total(xs) {\n  let sum = 0\n  for (const x of xs) sum += x\n  return summ\n}\n' >"$d/src/total.js"
printf 'lint:\n\t$(BIN)/eslint -f unix src\n' >"$d/Makefile"
cap lint-error make-eslint-unix "$d" make lint BIN="$BIN"

# ---------------------------------------------------------------- Maven and Gradle
d=$(proj mvn-offline-dep)
printf '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion><groupId>shop</groupId><artifactId>api</artifactId><version>1</version><dependencies><dependency><groupId>com.google.code.gson</groupId><artifactId>gson</artifactId><version>2.10.1</version></dependency></dependencies></project>\n' >"$d/pom.xml"
cap import-not-found maven-offline-compile-dependency "$d" mvn -B -o -q -Dmaven.repo.local="$d/m2" compile
d=$(proj mvn-parent-net)
printf '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion><parent><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-parent</artifactId><version>3.2.0</version></parent><artifactId>api</artifactId></project>\n' >"$d/pom.xml"
cap network-error maven-parent-unknown-host "$d" mvn -B -Dmaven.repo.local="$d/m2" test
d=$(proj mvn-noversion)
printf '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion><groupId>shop</groupId><artifactId>api</artifactId><version>1</version><dependencies><dependency><groupId>junit</groupId><artifactId>junit</artifactId></dependency></dependencies></project>\n' >"$d/pom.xml"
cap build-error maven-dependency-version-missing "$d" mvn -B -o -q -Dmaven.repo.local="$d/m2" validate
d=$(proj gradle-plugin)
printf "plugins {\n  id 'org.springframework.boot' version '3.2.0'\n}\n" >"$d/build.gradle"
cap import-not-found gradle-offline-plugin "$d" gradle --offline --console=plain -q -g "$d/gh" build
d=$(proj gradle-types) && mkdir -p "$d/src/main/java/shop"
printf "apply plugin: 'java'\n" >"$d/build.gradle"
printf 'package shop;\npublic class Qty {\n  int parse(String s) {\n    int n = s;\n    return n;\n  }\n}\n' >"$d/src/main/java/shop/Qty.java"
cap type-error gradle-javac-incompatible-types "$d" gradle --offline --console=plain -q -g "$d/gh" compileJava
d=$(proj gradle-semicolon) && mkdir -p "$d/src/main/java/shop"
printf "apply plugin: 'java'\n" >"$d/build.gradle"
printf 'package shop;\npublic class Cart {\n  int size() {\n    return 0\n  }\n}\n' >"$d/src/main/java/shop/Cart.java"
cap syntax-error gradle-javac-missing-semicolon "$d" gradle --offline --console=plain -q -g "$d/gh" compileJava
d=$(proj gradle-testdep) && mkdir -p "$d/src/test/java/shop"
printf "apply plugin: 'java'\nrepositories { mavenCentral() }\ndependencies { testCompile 'org.assertj:assertj-core:3.25.1' }\n" >"$d/build.gradle"
printf 'package shop;\npublic class CartTest {}\n' >"$d/src/test/java/shop/CartTest.java"
cap import-not-found gradle-offline-test-dependency "$d" gradle --offline --console=plain -q -g "$d/gh" test

# ---------------------------------------------------------------- ESLint formatters, other rules and files
d=$(proj eslint-web) && mkdir -p "$d/web/lib" && ln -s "$FXTOOLS/node_modules" "$d/node_modules"
printf 'import js from "@eslint/js"\nexport default [js.configs.recommended, { rules: { "prefer-const": "error", "no-empty": "error", "no-dupe-keys": "error" } }]\n' >"$d/eslint.config.mjs"
printf 'export function track(evt) {\n  let name = evt.type\n  window.analytics.push(name)\n}\n' >"$d/web/lib/track.js"
printf 'export const theme = {\n  color: "red",\n  size: 2,\n  color: "blue",\n}\nexport function load() {\n  try {\n    return 1\n  } catch (e) {}\n}\n' >"$d/web/theme.js"
cap lint-error eslint-stylish-web "$d" "$BIN/eslint" web
cap lint-error eslint-compact-web "$d" "$BIN/eslint" -f compact web
cap lint-error eslint-json-web "$d" "$BIN/eslint" -f json web
d=$(proj eslint-unreachable) && mkdir -p "$d/lib" && ln -s "$FXTOOLS/node_modules" "$d/node_modules"
printf 'import js from "@eslint/js"\nexport default [js.configs.recommended]\n' >"$d/eslint.config.mjs"
printf 'export function retry(fn) {\n  while (true) {\n    return fn()\n    console.log("retrying")\n  }\n}\n' >"$d/lib/retry.js"
cap lint-error eslint-unix-unreachable "$d" "$BIN/eslint" -f unix lib
d=$(proj eslint-unix-parse) && mkdir -p "$d/lib" && ln -s "$FXTOOLS/node_modules" "$d/node_modules"
printf 'import js from "@eslint/js"\nexport default [js.configs.recommended]\n' >"$d/eslint.config.mjs"
printf 'export function area(r) {\n  return Math.PI * r *\n}\n' >"$d/lib/area.js"
cap syntax-error eslint-unix-parse-error "$d" "$BIN/eslint" -f unix lib

# ---------------------------------------------------------------- vitest and jest suites
d=$(proj vitest-throw) && ln -s "$FXTOOLS/node_modules" "$d/node_modules" && mkdir -p "$d/test"
printf '{"name":"shop","type":"module"}\n' >"$d/package.json"
printf 'import { expect, test } from "vitest"\nif (!process.env.DATABASE_URL) throw new Error("DATABASE_URL is not set")\ntest("db", () => { expect(1).toBe(1) })\n' >"$d/test/db.test.js"
cap test-failure vitest-toplevel-throw "$d" "$BIN/vitest" run
d=$(proj vitest-src-syntax) && ln -s "$FXTOOLS/node_modules" "$d/node_modules" && mkdir -p "$d/src" "$d/test"
printf '{"name":"shop","type":"module"}\n' >"$d/package.json"
printf 'export function slugify(s: string): string {\n  return s.toLowerCase().replace(/ /g, "-"\n}\n' >"$d/src/slug.ts"
printf 'import { expect, test } from "vitest"\nimport { slugify } from "../src/slug"\ntest("slug", () => { expect(slugify("A B")).toBe("a-b") })\n' >"$d/test/slug.test.ts"
cap syntax-error vitest-source-syntax "$d" "$BIN/vitest" run
d=$(proj jest-pkg)
printf '{"name":"shop"}\n' >"$d/package.json"
printf 'const dayjs = require("dayjs")\ntest("formats", () => { expect(dayjs("2024-01-01").year()).toBe(2024) })\n' >"$d/date.test.js"
cap import-not-found jest-missing-package "$d" "$BIN/jest" --ci --rootDir .
d=$(proj jest-typeerror)
printf '{"name":"shop"}\n' >"$d/package.json"
printf 'const settings = undefined\nconst port = settings.port\ntest("port", () => { expect(port).toBe(80) })\n' >"$d/port.test.js"
cap test-failure jest-toplevel-typeerror "$d" "$BIN/jest" --ci --rootDir .
d=$(proj jest-src-syntax)
printf '{"name":"shop"}\n' >"$d/package.json"
printf 'function parse(line) {\n  return line.split(",").map((x) => x.trim()\n}\nmodule.exports = { parse }\n' >"$d/parser.js"
printf 'const { parse } = require("./parser")\ntest("parses", () => { expect(parse("a, b")).toEqual(["a", "b"]) })\n' >"$d/parser.test.js"
cap syntax-error jest-source-syntax "$d" "$BIN/jest" --ci --rootDir .

# ---------------------------------------------------------------- pytest collection
d=$(proj pytest-cannot-import) && mkdir -p "$d/app" "$d/tests"
printf '' >"$d/app/__init__.py" && printf 'def price():\n    return 1\n' >"$d/app/pricing.py"
printf 'from app.pricing import discount\n\n\ndef test_discount():\n    assert discount(10) == 9\n' >"$d/tests/test_pricing.py"
cap import-not-found pytest-cannot-import-name "$d" python3 -m pytest -q -p no:cacheprovider tests
d=$(proj pytest-nameerror) && mkdir -p "$d/tests"
printf 'LIMIT = DEFAULT_LIMIT * 2\n\n\ndef test_limit():\n    assert LIMIT > 0\n' >"$d/tests/test_limit.py"
cap test-failure pytest-collect-nameerror "$d" python3 -m pytest -q -p no:cacheprovider tests
d=$(proj pytest-src-syntax) && mkdir -p "$d/app" "$d/tests"
printf '' >"$d/app/__init__.py" && printf 'def total(items:\n    return sum(items)\n' >"$d/app/models.py"
printf 'from app.models import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n' >"$d/tests/test_models.py"
cap syntax-error pytest-collect-source-syntax "$d" python3 -m pytest -q -p no:cacheprovider tests

echo "held-out fixtures written to $OUT"
