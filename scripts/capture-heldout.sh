#!/usr/bin/env bash
# Captures the HELD-OUT set into test/fixtures-heldout/<pattern-id>/<tool>.txt: real output of the tools
# the pattern library was widened for (issue 17: Go, make, Maven, Gradle, ESLint's formatters, vitest and
# jest suites, pytest collection), from other programs and other errors than the training fixtures of
# scripts/capture-fixtures.sh, captured after the patterns were written and never used to tune them.
# test/fixtures-heldout/manifest.json holds the expected pattern of each, decided before the capture;
# test/unit/analysis/heldout-accuracy.test.ts prints the accuracy and fails below 95%.
#
#   scripts/capture-heldout.sh            # all
#   scripts/capture-heldout.sh "" "go-vet-nilfunc make-vet"   # some
#
# Round 2 (this script): round 1 (git history) scored 30/37 = 81.1%, the patterns were then improved on
# new TRAINING fixtures only, and this fresh set of other programs and errors was written and captured.
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
d=$(proj vet-unusedresult) && gomod "$d"
printf 'package main\n\nimport "fmt"\n\nfunc main() {\n\tid := 7\n\tfmt.Sprintf("order-%%d", id)\n}\n' >"$d/main.go"
cap lint-error go-vet-unusedresult "$d" go vet ./...
d=$(proj vet-bools) && gomod "$d" && mkdir -p "$d/rules"
printf 'package rules\n\nfunc Eligible(age int) bool {\n\treturn age == 18 || age == 18\n}\n' >"$d/rules/age.go"
cap lint-error go-vet-bools "$d" go vet ./...
d=$(proj vet-nilfunc) && gomod "$d"
printf 'package shop\n\nfunc Checkout() {}\n\nfunc Ready() bool { return Checkout != nil }\n' >"$d/checkout.go"
cap lint-error go-vet-nilfunc "$d" go vet ./...
d=$(proj vet-structtag) && gomod "$d"
printf 'package shop\n\ntype Item struct {\n\tName string `json:name`\n}\n' >"$d/item.go"
cap lint-error go-vet-structtag "$d" go vet ./...

# ---------------------------------------------------------------- go build
d=$(proj go-arg-type) && gomod "$d"
printf 'package main\n\nfunc double(n int) int { return n * 2 }\n\nfunc main() {\n\tlabel := "4"\n\t_ = double(label)\n}\n' >"$d/main.go"
cap type-error go-build-arg-type "$d" go build ./...
d=$(proj go-too-many) && gomod "$d"
printf 'package main\n\nfunc tax(total int) int { return total / 10 }\n\nfunc main() {\n\t_ = tax(100, 20)\n}\n' >"$d/main.go"
cap build-error go-build-too-many-args "$d" go build ./...
d=$(proj go-undef-method) && gomod "$d"
printf 'package main\n\nimport "strings"\n\nfunc main() {\n\t_ = strings.Reversed("abc")\n}\n' >"$d/main.go"
cap build-error go-build-undefined-qualified "$d" go build ./...
d=$(proj go-outside) && gomod "$d"
printf 'package main\n\nx := 1\n\nfunc main() {}\n' >"$d/main.go"
cap syntax-error go-build-outside-func "$d" go build ./...
d=$(proj go-stdpkg) && gomod "$d"
printf 'package main\n\nimport "encoding/yaml"\n\nfunc main() { _ = yaml.Marshal }\n' >"$d/main.go"
cap import-not-found go-build-not-in-goroot "$d" go build ./...

# ---------------------------------------------------------------- go test and gofmt
d=$(proj go-subtest) && gomod "$d" && mkdir -p "$d/pricing"
printf 'package pricing\n\n// Round rounds cents to the nearest ten.\nfunc Round(c int) int { return c / 10 * 10 }\n' >"$d/pricing/round.go"
printf 'package pricing\n\nimport "testing"\n\nfunc TestRound(t *testing.T) {\n\tt.Run("up", func(t *testing.T) {\n\t\tif got := Round(15); got != 20 {\n\t\t\tt.Fatalf("Round(15) = %%d, want 20", got)\n\t\t}\n\t})\n}\n' >"$d/pricing/round_test.go"
cap test-failure go-test-subtest "$d" go test ./...
d=$(proj go-nilptr) && gomod "$d"
printf 'package shop\n\ntype User struct{ Name string }\n\nfunc Greet(u *User) string { return "hi " + u.Name }\n' >"$d/greet.go"
printf 'package shop\n\nimport "testing"\n\nfunc TestGreet(t *testing.T) {\n\tif Greet(nil) == "" {\n\t\tt.Fail()\n\t}\n}\n' >"$d/greet_test.go"
cap test-failure go-test-nil-pointer "$d" go test ./...
d=$(proj gofmt-two) && gomod "$d" && mkdir -p "$d/cmd/api" "$d/internal/cache"
printf 'package main\n\nfunc main()  {\n}\n' >"$d/cmd/api/main.go"
printf 'package cache\n\ntype LRU struct {\nsize int\n}\n' >"$d/internal/cache/lru.go"
cap format-error gofmt-l-two-dirs "$d" gofmt -l .

# ---------------------------------------------------------------- make around other tools
d=$(proj make-vet) && gomod "$d"
printf 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("%%d items", 3)\n}\n' >"$d/main.go"
printf 'vet:\n\tgo vet ./...\n' >"$d/Makefile"
cap lint-error make-vet "$d" make vet
d=$(proj make-gotest) && gomod "$d"
printf 'package shop\n\nfunc Max(a, b int) int {\n\tif a > b {\n\t\treturn b\n\t}\n\treturn a\n}\n' >"$d/max.go"
printf 'package shop\n\nimport "testing"\n\nfunc TestMax(t *testing.T) {\n\tif Max(2, 1) != 2 {\n\t\tt.Errorf("Max(2, 1) = %%d", Max(2, 1))\n\t}\n}\n' >"$d/max_test.go"
printf 'test:\n\tgo test ./...\n' >"$d/Makefile"
cap test-failure make-go-test "$d" make test
d=$(proj make-recursive) && mkdir -p "$d/sub"
printf 'all:\n\t$(MAKE) -C sub\n' >"$d/Makefile" && printf 'all:\n\t@echo "generating assets"\n\t@exit 3\n' >"$d/sub/Makefile"
cap build-error make-recursive "$d" make --no-print-directory
d=$(proj make-nofile)
cap build-error make-missing-makefile "$d" make -f Build.mk

# ---------------------------------------------------------------- Maven and Gradle
d=$(proj mvn-plugin)
printf '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion><groupId>shop</groupId><artifactId>shop</artifactId><version>1</version><build><plugins><plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>3.2.2</version></plugin></plugins></build></project>\n' >"$d/pom.xml"
cap import-not-found maven-offline-plugin "$d" mvn -B -o -q -Dmaven.repo.local="$d/m2" test
d=$(proj mvn-net2)
printf '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion><groupId>shop</groupId><artifactId>shop</artifactId><version>1</version></project>\n' >"$d/pom.xml"
cap network-error maven-unknown-host-tree "$d" mvn -B -Dmaven.repo.local="$d/m2" dependency:tree
d=$(proj mvn-nopom)
cap build-error maven-no-pom "$d" mvn -B -o -q -Dmaven.repo.local="$d/m2" package
d=$(proj gradle-impl) && mkdir -p "$d/src/main/java/shop"
printf "apply plugin: 'java'\nrepositories { mavenCentral() }\ndependencies {\n  compile 'com.fasterxml.jackson.core:jackson-databind:2.16.0'\n  compile 'org.apache.commons:commons-lang3:3.14.0'\n}\n" >"$d/build.gradle"
printf 'package shop;\npublic class Json {}\n' >"$d/src/main/java/shop/Json.java"
cap import-not-found gradle-offline-two-deps "$d" gradle --offline --console=plain -q -g "$d/gh" compileJava
d=$(proj gradle-pkg) && mkdir -p "$d/src/main/java/shop"
printf "apply plugin: 'java'\n" >"$d/build.gradle"
printf 'package shop;\nimport com.acme.billing.Invoice;\npublic class Order { Invoice invoice; }\n' >"$d/src/main/java/shop/Order.java"
cap import-not-found gradle-javac-missing-package "$d" gradle --offline --console=plain -q -g "$d/gh" compileJava

# ---------------------------------------------------------------- ESLint formatters, other rules and files
d=$(proj eslint-api) && mkdir -p "$d/src/routes" && ln -s "$FXTOOLS/node_modules" "$d/node_modules"
printf 'import js from "@eslint/js"\nexport default [js.configs.recommended, { rules: { "no-var": "error", eqeqeq: "warn", "no-unused-vars": "warn" } }]\n' >"$d/eslint.config.mjs"
printf 'export const health = () => "ok"\n' >"$d/src/routes/a-health.js"
printf 'export function find(list, id) {\n  var found = null\n  for (const item of list) if (item.id == id) found = item\n  return found\n}\n' >"$d/src/routes/orders.js"
printf 'export function parse(input, unusedFlag) {\n  return JSON.parse(input)\n}\n' >"$d/src/routes/parse.js"
cap lint-error eslint-compact-api "$d" "$BIN/eslint" -f compact src
cap lint-error eslint-unix-api "$d" "$BIN/eslint" -f unix src
cap lint-error eslint-json-api "$d" "$BIN/eslint" -f json src
d=$(proj eslint-stylish-parse) && mkdir -p "$d/src" && ln -s "$FXTOOLS/node_modules" "$d/node_modules"
printf 'import js from "@eslint/js"\nexport default [js.configs.recommended]\n' >"$d/eslint.config.mjs"
printf 'const cfg = {\n  port: 8080\n  host: "0.0.0.0",\n}\nexport default cfg\n' >"$d/src/config.js"
cap syntax-error eslint-stylish-parse "$d" "$BIN/eslint" src

# ---------------------------------------------------------------- vitest and jest suites
d=$(proj vitest-rel-ts) && ln -s "$FXTOOLS/node_modules" "$d/node_modules" && mkdir -p "$d/tests"
printf '{"name":"shop","type":"module"}\n' >"$d/package.json"
printf 'import { expect, test } from "vitest"\nimport { formatPrice } from "../src/format"\ntest("formats", () => { expect(formatPrice(100)).toBe("$1.00") })\n' >"$d/tests/format.test.ts"
cap import-not-found vitest-missing-relative-ts "$d" "$BIN/vitest" run
d=$(proj vitest-toplevel) && ln -s "$FXTOOLS/node_modules" "$d/node_modules" && mkdir -p "$d/test"
printf '{"name":"shop","type":"module"}\n' >"$d/package.json"
printf 'import { expect, test } from "vitest"\nconst root = document.getElementById("app")\ntest("mounts", () => { expect(root).toBeTruthy() })\n' >"$d/test/mount.test.js"
cap test-failure vitest-toplevel-reference "$d" "$BIN/vitest" run
d=$(proj jest-transitive)
printf '{"name":"shop"}\n' >"$d/package.json"
printf 'const db = require("./db/connection")\nmodule.exports = { save: (x) => db.insert(x) }\n' >"$d/repo.js"
printf 'const repo = require("./repo")\ntest("saves", () => { expect(repo.save).toBeDefined() })\n' >"$d/repo.test.js"
cap import-not-found jest-missing-transitive "$d" "$BIN/jest" --ci --rootDir .
d=$(proj jest-toplevel)
printf '{"name":"shop"}\n' >"$d/package.json"
printf 'const config = JSON.parse(undefined)\ntest("config", () => { expect(config).toBeDefined() })\n' >"$d/config.test.js"
cap test-failure jest-toplevel-error "$d" "$BIN/jest" --ci --rootDir .

# ---------------------------------------------------------------- pytest collection and setup
d=$(proj pytest-submodule) && mkdir -p "$d/app" "$d/tests"
printf '' >"$d/app/__init__.py"
printf 'from app.models import User\n\n\ndef test_user():\n    assert User("ada").name == "ada"\n' >"$d/tests/test_models.py"
cap import-not-found pytest-missing-submodule "$d" python3 -m pytest -q -p no:cacheprovider tests
d=$(proj pytest-indent) && mkdir -p "$d/tests"
printf 'def test_total():\n    total = 1 + 2\n      assert total == 3\n' >"$d/tests/test_indent.py"
cap syntax-error pytest-collect-indentation "$d" python3 -m pytest -q -p no:cacheprovider tests
d=$(proj pytest-conftest-syntax) && mkdir -p "$d/tests"
printf 'import pytest\n\n@pytest.fixture\ndef client(:\n    return None\n' >"$d/tests/conftest.py" && printf 'def test_ok(client):\n    assert client is None\n' >"$d/tests/test_ok.py"
cap syntax-error pytest-conftest-syntax "$d" python3 -m pytest -q -p no:cacheprovider tests
d=$(proj pytest-fixture) && mkdir -p "$d/tests"
printf 'def test_orders(db):\n    assert db.count() == 0\n' >"$d/tests/test_orders.py"
cap test-failure pytest-fixture-not-found "$d" python3 -m pytest -q -p no:cacheprovider tests

echo "held-out fixtures written to $OUT"
