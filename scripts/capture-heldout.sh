#!/usr/bin/env bash
# Captures the HELD-OUT set into test/fixtures-heldout/<pattern-id>/<tool>.txt: real output of the tools
# the pattern library was widened for (issue 17: Go, make, Maven, Gradle, ESLint's formatters, vitest and
# jest suites, pytest collection), from other programs and other errors than the training fixtures of
# scripts/capture-fixtures.sh, captured after the patterns were written and never used to tune them.
# test/fixtures-heldout/manifest.json holds the expected pattern of each, decided before the capture;
# test/unit/analysis/heldout-accuracy.test.ts fails below 95%; `npm run bench -- 11.` prints the figure.
#
#   scripts/capture-heldout.sh            # all
#   scripts/capture-heldout.sh "" "go-vet-nilfunc make-vet"   # some
#
# Round 4 (this script): round 1 scored 30/37 = 81.1%, round 2 28/33 = 84.8%, round 3 36/40 = 90.0% (all in git
# history); each
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
d=$(proj vet-printf-args) && gomod "$d"
printf 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Printf("%%d of %%d\\n", 3)\n}\n' >"$d/main.go"
cap lint-error go-vet-printf-missing-arg "$d" go vet ./...
d=$(proj vet-bools) && gomod "$d" && mkdir -p "$d/rank"
printf 'package rank\n\nfunc Top(n int) bool {\n\tif n == 1 || n == 1 {\n\t\treturn true\n\t}\n\treturn false\n}\n' >"$d/rank/top.go"
cap lint-error go-vet-redundant-or "$d" go vet ./...
d=$(proj vet-structtag) && gomod "$d" && mkdir -p "$d/user"
printf 'package user\n\ntype User struct {\n\tName string `json:name`\n}\n' >"$d/user/user.go"
cap lint-error go-vet-struct-tag "$d" go vet ./...
d=$(proj vet-shift) && gomod "$d"
printf 'package shop\n\nfunc Flags() int8 {\n\tvar b int8 = 1\n\treturn b << 9\n}\n' >"$d/flags.go"
cap lint-error go-vet-shift-too-large "$d" go vet ./...
d=$(proj vet-stringint) && gomod "$d"
printf 'package shop\n\nfunc Code(n int) string {\n\treturn string(n)\n}\n' >"$d/code.go"
cap lint-error go-vet-string-int-conversion "$d" go vet ./...

# ---------------------------------------------------------------- go build and modules
d=$(proj go-unused-var) && gomod "$d" && mkdir -p "$d/internal/calc"
printf 'package calc\n\nfunc Double(n int) int {\n\tx := 5\n\treturn n * 2\n}\n' >"$d/internal/calc/calc.go"
cap build-error go-build-unused-variable "$d" go build ./...
d=$(proj go-iface) && gomod "$d"
printf 'package main\n\ntype Shape interface{ Area() float64 }\n\ntype Square struct{ s float64 }\n\nvar _ Shape = Square{}\n\nfunc main() {}\n' >"$d/shapes.go"
cap type-error go-build-missing-interface-method "$d" go build ./...
d=$(proj go-return-type) && gomod "$d"
printf 'package main\n\nfunc port() int {\n\treturn "8080"\n}\n\nfunc main() { _ = port() }\n' >"$d/main.go"
cap type-error go-build-return-type "$d" go build ./...
d=$(proj go-map-comma) && gomod "$d"
printf 'package main\n\nfunc main() {\n\tm := map[string]int{"a": 1 "b": 2}\n\t_ = m\n}\n' >"$d/main.go"
cap syntax-error go-build-map-literal-comma "$d" go build ./...
d=$(proj go-cycle) && gomod "$d" && mkdir -p "$d/a" "$d/b"
printf 'package a\n\nimport "example.com/shop/b"\n\nfunc A() int { return b.B() }\n' >"$d/a/a.go"
printf 'package b\n\nimport "example.com/shop/a"\n\nfunc B() int { return a.A() }\n' >"$d/b/b.go"
cap build-error go-build-import-cycle "$d" go build ./...
d=$(proj go-std-missing) && gomod "$d"
printf 'package main\n\nimport "encoding/yaml"\n\nfunc main() { _ = yaml.Marshal }\n' >"$d/main.go"
cap import-not-found go-build-std-package-missing "$d" go build ./...
d=$(proj go-mod-directive)
printf 'module example.com/shop\n\ngo 1.19\nrequir example.com/lib v1.0.0\n' >"$d/go.mod"
printf 'package main\n\nfunc main() {}\n' >"$d/main.go"
cap build-error go-mod-unknown-directive "$d" go build ./...

# ---------------------------------------------------------------- go test and gofmt
d=$(proj go-subtest) && gomod "$d" && mkdir -p "$d/mathx"
printf 'package mathx\n\nfunc Abs(n int) int { return n }\n' >"$d/mathx/abs.go"
printf 'package mathx\n\nimport "testing"\n\nfunc TestAbs(t *testing.T) {\n\tt.Run("negative", func(t *testing.T) {\n\t\tif got := Abs(-2); got != 2 {\n\t\t\tt.Fatalf("Abs(-2) = %%d, want 2", got)\n\t\t}\n\t})\n}\n' >"$d/mathx/abs_test.go"
cap test-failure go-test-subtest-fatal "$d" go test ./...
d=$(proj go-nil-map) && gomod "$d"
printf 'package shop\n\ntype Cache struct{ m map[string]int }\n\nfunc (c *Cache) Put(k string, v int) { c.m[k] = v }\n' >"$d/cache.go"
printf 'package shop\n\nimport "testing"\n\nfunc TestPut(t *testing.T) {\n\tc := &Cache{}\n\tc.Put("a", 1)\n}\n' >"$d/cache_test.go"
cap test-failure go-test-nil-map-panic "$d" go test ./...
d=$(proj gofmt-flat) && gomod "$d"
printf 'package shop\n\nvar Rates = map[string]int{\n"a":1,\n}\n' >"$d/rates.go"
cap format-error gofmt-l-flat "$d" gofmt -l .

# ---------------------------------------------------------------- make around other tools
d=$(proj make-no-target)
printf 'build:\n\techo building\n' >"$d/Makefile"
cap build-error make-unknown-target "$d" make deploy
d=$(proj make-go-build) && gomod "$d"
printf 'package main\n\nfunc main() { serve() }\n' >"$d/main.go"
printf 'build:\n\tgo build ./...\n' >"$d/Makefile"
cap build-error make-go-build-undefined "$d" make build
d=$(proj make-missing-tool)
printf 'lint:\n\tgolangci-lint-not-installed run ./...\n' >"$d/Makefile"
cap command-not-found make-recipe-command-missing "$d" make lint

# ---------------------------------------------------------------- Maven and Gradle
d=$(proj mvn-packaging)
printf '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion><groupId>shop</groupId><artifactId>api</artifactId><version>1</version><packaging>jarr</packaging></project>\n' >"$d/pom.xml"
cap build-error maven-unknown-packaging "$d" mvn -B -o -q -Dmaven.repo.local="$d/m2" validate
d=$(proj mvn-no-artifactid)
printf '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion><groupId>shop</groupId><version>1</version></project>\n' >"$d/pom.xml"
cap build-error maven-missing-artifactid "$d" mvn -B -o -q -Dmaven.repo.local="$d/m2" validate
d=$(proj mvn-module)
printf '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion><groupId>shop</groupId><artifactId>parent</artifactId><version>1</version><packaging>pom</packaging><modules><module>core</module></modules></project>\n' >"$d/pom.xml"
cap build-error maven-child-module-missing "$d" mvn -B -o -q -Dmaven.repo.local="$d/m2" validate
d=$(proj mvn-offline-plugin)
printf '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion><groupId>shop</groupId><artifactId>api</artifactId><version>1</version></project>\n' >"$d/pom.xml"
cap import-not-found maven-offline-lifecycle-plugin "$d" mvn -B -o -q -Dmaven.repo.local="$d/m2" package
d=$(proj gradle-task)
printf "apply plugin: 'java'\n" >"$d/build.gradle"
cap build-error gradle-task-not-found "$d" gradle --offline --console=plain -q -g "$d/gh" bulid
d=$(proj gradle-symbol) && mkdir -p "$d/src/main/java/shop"
printf "apply plugin: 'java'\n" >"$d/build.gradle"
printf 'package shop;\npublic class Order {\n  int total() {\n    return computeTotal();\n  }\n}\n' >"$d/src/main/java/shop/Order.java"
cap build-error gradle-javac-cannot-find-symbol "$d" gradle --offline --console=plain -q -g "$d/gh" compileJava
d=$(proj gradle-paren-if) && mkdir -p "$d/src/main/java/shop"
printf "apply plugin: 'java'\n" >"$d/build.gradle"
printf 'package shop;\npublic class Stock {\n  boolean low(int n) {\n    if (n < 3 {\n      return true;\n    }\n    return false;\n  }\n}\n' >"$d/src/main/java/shop/Stock.java"
cap syntax-error gradle-javac-paren-expected "$d" gradle --offline --console=plain -q -g "$d/gh" compileJava
d=$(proj gradle-impl-dep) && mkdir -p "$d/src/main/java/shop"
printf "apply plugin: 'java'\nrepositories { mavenCentral() }\ndependencies { implementation 'com.squareup.okhttp3:okhttp:4.12.0' }\n" >"$d/build.gradle"
printf 'package shop;\npublic class Client {}\n' >"$d/src/main/java/shop/Client.java"
cap import-not-found gradle-offline-implementation-dependency "$d" gradle --offline --console=plain -q -g "$d/gh" compileJava
d=$(proj gradle-settings)
printf "rootProject.name = 'shop\n" >"$d/settings.gradle"
printf "apply plugin: 'java'\n" >"$d/build.gradle"
cap build-error gradle-settings-script-error "$d" gradle --offline --console=plain -q -g "$d/gh" build

# ---------------------------------------------------------------- ESLint formatters, other rules and files
d=$(proj eslint-api) && mkdir -p "$d/api" && ln -s "$FXTOOLS/node_modules" "$d/node_modules"
printf 'import js from "@eslint/js"\nexport default [js.configs.recommended, { rules: { eqeqeq: "error", "no-var": "error" } }]\n' >"$d/eslint.config.mjs"
printf 'export function status(code) {\n  var ok = code == 200\n  return ok ? "ok" : reason\n}\n' >"$d/api/status.js"
cap lint-error eslint-stylish-api "$d" "$BIN/eslint" api
cap lint-error eslint-compact-api "$d" "$BIN/eslint" -f compact api
cap lint-error eslint-json-api "$d" "$BIN/eslint" -f json api
cap lint-error eslint-unix-api "$d" "$BIN/eslint" -f unix api
d=$(proj eslint-jsx) && mkdir -p "$d/ui" && ln -s "$FXTOOLS/node_modules" "$d/node_modules"
printf 'import js from "@eslint/js"\nexport default [js.configs.recommended]\n' >"$d/eslint.config.mjs"
printf 'export function Button() {\n  return <button>ok</button>\n}\n' >"$d/ui/button.js"
cap syntax-error eslint-stylish-jsx-parse "$d" "$BIN/eslint" ui
d=$(proj eslint-plugin-missing) && mkdir -p "$d/src" && ln -s "$FXTOOLS/node_modules" "$d/node_modules"
printf 'import react from "eslint-plugin-react"\nexport default [react.configs.flat.recommended]\n' >"$d/eslint.config.mjs"
printf 'export const x = 1\n' >"$d/src/x.js"
cap import-not-found eslint-config-plugin-missing "$d" "$BIN/eslint" src

# ---------------------------------------------------------------- vitest and jest suites
d=$(proj vitest-pkg) && ln -s "$FXTOOLS/node_modules" "$d/node_modules" && mkdir -p "$d/test"
printf '{"name":"shop","type":"module"}\n' >"$d/package.json"
printf 'import { expect, test } from "vitest"\nimport { chunk } from "lodash-es"\ntest("chunks", () => { expect(chunk([1, 2], 1)).toHaveLength(2) })\n' >"$d/test/chunk.test.js"
cap import-not-found vitest-missing-package "$d" "$BIN/vitest" run
d=$(proj vitest-relative) && ln -s "$FXTOOLS/node_modules" "$d/node_modules" && mkdir -p "$d/test" "$d/src"
printf '{"name":"shop","type":"module"}\n' >"$d/package.json"
printf 'import { expect, test } from "vitest"\nimport { money } from "../src/money"\ntest("money", () => { expect(money(1)).toBe("$1.00") })\n' >"$d/test/money.test.ts"
cap import-not-found vitest-missing-relative-module "$d" "$BIN/vitest" run
d=$(proj vitest-hook) && ln -s "$FXTOOLS/node_modules" "$d/node_modules" && mkdir -p "$d/test"
printf '{"name":"shop","type":"module"}\n' >"$d/package.json"
printf 'import { beforeAll, expect, test } from "vitest"\nlet server\nbeforeAll(() => { server = undefined; server.listen(0) })\ntest("up", () => { expect(server).toBeDefined() })\n' >"$d/test/server.test.js"
cap test-failure vitest-beforeall-throws "$d" "$BIN/vitest" run
d=$(proj jest-esm)
printf '{"name":"shop","jest":{"transform":{}}}\n' >"$d/package.json"
printf 'export const vat = (n) => n * 1.2\n' >"$d/vat.js"
printf 'import { vat } from "./vat"\ntest("vat", () => { expect(vat(10)).toBe(12) })\n' >"$d/vat.test.js"
cap syntax-error jest-esm-import-untransformed "$d" "$BIN/jest" --ci --rootDir .
d=$(proj jest-missing-json)
printf '{"name":"shop"}\n' >"$d/package.json"
printf 'const config = require("./config.json")\ntest("config", () => { expect(config.port).toBe(80) })\n' >"$d/config.test.js"
cap import-not-found jest-missing-relative-file "$d" "$BIN/jest" --ci --rootDir .

# ---------------------------------------------------------------- pytest collection
d=$(proj pytest-no-module) && mkdir -p "$d/tests"
printf 'import requests_mock_not_installed\n\n\ndef test_get():\n    assert requests_mock_not_installed\n' >"$d/tests/test_http.py"
cap import-not-found pytest-collect-module-not-found "$d" python3 -m pytest -q -p no:cacheprovider tests
d=$(proj pytest-conftest-syntax) && mkdir -p "$d/tests"
printf 'import pytest\n\n@pytest.fixture\ndef user()\n    return {"name": "a"}\n' >"$d/tests/conftest.py"
printf 'def test_user(user):\n    assert user["name"] == "a"\n' >"$d/tests/test_user.py"
cap syntax-error pytest-conftest-syntax "$d" python3 -m pytest -q -p no:cacheprovider tests
d=$(proj pytest-fixture-missing) && mkdir -p "$d/tests"
printf 'def test_orders(db_session):\n    assert db_session.query() == []\n' >"$d/tests/test_orders.py"
cap test-failure pytest-fixture-not-found "$d" python3 -m pytest -q -p no:cacheprovider tests
d=$(proj pytest-attr) && mkdir -p "$d/tests"
printf 'import os\n\nHOME = os.envirn["HOME"]\n\n\ndef test_home():\n    assert HOME\n' >"$d/tests/test_env.py"
cap test-failure pytest-collect-attributeerror "$d" python3 -m pytest -q -p no:cacheprovider tests

echo "held-out fixtures written to $OUT"
