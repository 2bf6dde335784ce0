import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../../src/config/errors.js'
import { parseLoopConfig } from '../../../src/config/load-config.js'

function config(check: string[]): string {
  return [
    'work:',
    '  run: agent',
    'checks:',
    '  - name: unit',
    '    kind: test',
    ...check.map((l) => `    ${l}`),
    '',
  ].join('\n')
}

function refusal(text: string): string {
  try {
    parseLoopConfig(text, '.github/loop.yml')
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as Error).message
  }
  throw new Error('expected the config to be refused')
}

describe('a sharded check in the loop config', () => {
  it.each([
    { name: 'the {shard} and {shards} placeholders', lines: ['shards: 4', 'run: vitest run --shard={shard}/{shards}'] },
    { name: 'LOOP_SHARD in a shell line', lines: ['shards: 3', 'run: ./split-tests.sh "$LOOP_SHARD" "$LOOP_SHARDS"'] },
    { name: 'an argument list', lines: ['shards: 2', 'run: [jest, "--shard={shard}/{shards}"]'] },
    {
      name: 'a JUnit path per shard',
      lines: ['shards: 64', 'run: vitest run --shard={shard}/{shards}', 'junit: reports/junit-{shard}.xml'],
    },
    { name: 'one shard, a plain command', lines: ['shards: 1', 'run: npm test', 'junit: reports/junit.xml'] },
    { name: 'no shards at all', lines: ['run: npm test'] },
  ])('is accepted with $name', ({ lines }) => {
    const parsed = parseLoopConfig(config(lines), '.github/loop.yml')
    const shards = lines.find((l) => l.startsWith('shards:'))
    expect(parsed.checks[0]?.shards).toBe(shards ? Number(shards.split(': ')[1]) : undefined)
  })

  it.each([
    {
      name: 'a run that names neither {shard} nor LOOP_SHARD',
      lines: ['shards: 4', 'run: npm test'],
      want: [
        /checks\.unit\.shards: 4 shards, but the check's run \("npm test"\) names neither \{shard\} nor LOOP_SHARD/,
        /every shard would run the whole suite; expected a run such as 'vitest run --shard=\{shard\}\/\{shards\}'/,
      ],
    },
    {
      name: 'LOOP_SHARD in an argument list, which no shell expands',
      lines: ['shards: 2', 'run: [pytest, --group, "$LOOP_SHARD"]'],
      want: [
        /checks\.unit\.run: an argument list \(\["pytest","--group","\$LOOP_SHARD"\]\) is run without a shell/,
        /expected \{shard\}\/\{shards\} in its words .* or a string run/,
      ],
    },
    {
      name: 'a JUnit path every shard would write',
      lines: ['shards: 2', 'run: vitest run --shard={shard}/{shards}', 'junit: reports/junit.xml'],
      want: [
        /checks\.unit\.shards: 2 shards, but checks\.unit\.junit \("reports\/junit\.xml"\) has no \{shard\}/,
        /expected a path such as 'reports\/junit-\{shard\}\.xml'/,
      ],
    },
    {
      name: 'more than 64',
      lines: ['shards: 65', 'run: x {shard}'],
      want: [/line 6, checks\.unit\.shards: expected a whole number from 1 to 64 \(1: not sharded\); got 65/],
    },
    {
      name: 'zero',
      lines: ['shards: 0', 'run: x {shard}'],
      want: [/checks\.unit\.shards: expected a whole number from 1 to 64 \(1: not sharded\); got 0/],
    },
    {
      name: 'a fraction',
      lines: ['shards: 2.5', 'run: x {shard}'],
      want: [/checks\.unit\.shards: expected a whole number from 1 to 64 \(1: not sharded\); got 2\.5/],
    },
    {
      name: 'a string',
      lines: ['shards: "4"', 'run: x {shard}'],
      want: [/checks\.unit\.shards: expected a whole number from 1 to 64 \(1: not sharded\); got "4"/],
    },
  ])('is refused with $name', ({ lines, want }) => {
    const message = refusal(config(lines))
    expect(message).toMatch(/^Invalid loop config/)
    for (const pattern of want) expect(message).toMatch(pattern)
  })
})
