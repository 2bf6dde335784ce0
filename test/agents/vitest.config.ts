import { defineConfig } from 'vitest/config'

// The real agent CLIs (Claude Code, Codex) are hundreds of MB, installed on demand outside
// node_modules, and each loop takes minutes: `npm run test:agents` runs them, not the default suite.
export default defineConfig({
  test: {
    include: ['test/agents/**/*.test.ts'],
    testTimeout: 10 * 60_000,
    hookTimeout: 10 * 60_000,
    pool: 'forks',
    fileParallelism: false,
  },
})
