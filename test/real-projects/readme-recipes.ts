/**
 * The shard recipes README.md shows under "### Sharded checks", read out of the README itself, so the
 * commands the tests run on real test runners and the ones the README tells people to use cannot drift.
 */
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parse } from 'yaml'

export interface ShardRecipe {
  name: string
  kind: string
  shards: number
  run: string
  junit?: string
}

const README = join(resolve(import.meta.dirname, '..', '..'), 'README.md')

/** Every check of the first yaml block under "### Sharded checks", by name. */
export function readmeShardRecipes(): Map<string, ShardRecipe> {
  const text = readFileSync(README, 'utf8')
  const section = text.indexOf('\n### Sharded checks\n')
  const block = /```yaml\n([\s\S]*?)```/.exec(text.slice(section))
  if (section < 0 || !block?.[1]) throw new Error('README.md has no yaml block under "### Sharded checks"')
  const checks: ShardRecipe[] = parse(block[1]).checks
  return new Map(checks.map((check) => [check.name, check]))
}

/** One recipe, by its check's name in the README; throws naming the ones there when it is missing. */
export function readmeShardRecipe(name: string): ShardRecipe {
  const recipes = readmeShardRecipes()
  const recipe = recipes.get(name)
  if (!recipe) throw new Error(`README.md's "Sharded checks" has no check ${name}; it has ${[...recipes.keys()]}`)
  return recipe
}
