import { configDefaults, defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Minutes long and needing Go, Python and npm toolchains: `npm run test:real-projects:assert` runs them.
    exclude: [...configDefaults.exclude, 'test/real-projects/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    setupFiles: ['test/setup.ts'],
  },
})
