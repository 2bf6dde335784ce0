// Figure 9's real-project row runs ufo as configured and with its slow checks declared `custom`.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { slowChecksAsCustom } from '../../../bench/flake-check.js'

const ufo = readFileSync(join(import.meta.dirname, '..', '..', 'real-projects', 'ufo', 'loop.yml'), 'utf8')
const kinds = (yaml: string) =>
  Object.fromEntries((parse(yaml).checks as { name: string; kind: string }[]).map((c) => [c.name, c.kind]))

describe('slowChecksAsCustom', () => {
  it("declares only ufo's typecheck and lint checks custom, the rest as configured", () => {
    expect(kinds(ufo)).toEqual({ types: 'typecheck', lint: 'lint', format: 'format', test: 'test' })
    expect(kinds(slowChecksAsCustom(ufo))).toEqual({ types: 'custom', lint: 'custom', format: 'format', test: 'test' })
  })
})
