import { defineConfig } from 'vitest/config'

// The reports rendered as GitHub shows them, in headless Chromium (`npm run test:render`): a browser per
// run, so the suite runs on its own, not in the default one.
export default defineConfig({
  test: {
    include: ['test/render/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
  },
})
