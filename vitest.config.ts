import { configDefaults, defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Minutes long and needing Go, Python and npm toolchains (`npm run test:real-projects:assert`), the
    // real agent CLIs (`npm run test:agents`) or a browser (`npm run test:render`): each suite runs on its own.
    exclude: [...configDefaults.exclude, 'test/real-projects/**', 'test/agents/**', 'test/render/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at once even on two cores: the e2e files mostly wait on the sandbox's jobs (git, child
    // processes, loopback HTTP), so one file at a time leaves a core idle and CI near its 30 minutes.
    maxWorkers: 2,
    setupFiles: ['test/setup.ts'],
  },
})
