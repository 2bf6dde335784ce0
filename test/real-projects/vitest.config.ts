import { defineConfig } from 'vitest/config'

// The real-project loops take minutes and need Go, Python and npm toolchains: they run on their own
// (`npm run test:real-projects:assert`), not in the default suite.
export default defineConfig({
  test: {
    include: ['test/real-projects/**/*.test.ts'],
    testTimeout: 20 * 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
})
