// Generates schema/loop-config.schema.json from the same zod schema that validates the config,
// so editors autocomplete `.github/loop.yml` exactly as the controller reads it.
// `npm run schema` writes it; `npm run schema -- --check` fails when the committed file is stale.
import { readFileSync, writeFileSync } from 'node:fs'
import { z } from 'zod'
import { loopConfigSchema } from '../src/config/loop-config.js'

const target = new URL('../schema/loop-config.schema.json', import.meta.url)
const schema = {
  ...z.toJSONSchema(loopConfigSchema, { io: 'input', unrepresentable: 'any' }),
  $id: 'https://github.com/loop-controller/loop-controller/schema/loop-config.schema.json',
  title: 'loop-controller loop config (.github/loop.yml)',
}
const text = `${JSON.stringify(schema, null, 2)}\n`
if (process.argv.includes('--check')) {
  const current = readFileSync(target, 'utf8')
  if (current !== text) {
    console.error('schema/loop-config.schema.json is stale: run `npm run schema` and commit it.')
    process.exit(1)
  }
  console.log('schema/loop-config.schema.json is up to date.')
} else {
  writeFileSync(target, text)
  console.log(`wrote ${target.pathname}`)
}
