// The shared store contract, run against the `file` store (src/adapters/file-store.ts, the CLI default).
import { mkdtempSync } from 'node:fs'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll } from 'vitest'
import { FileStore } from '../../../src/adapters/file-store.js'
import { runStoreContract } from './store-contract.js'

const root = mkdtempSync(join(tmpdir(), 'file-store-contract-'))
afterAll(() => rm(root, { recursive: true, force: true }))

runStoreContract('file', async () => ({
  // Every writer is its own FileStore over the same folder, as two processes on one machine would be.
  store: async () => new FileStore({ root }),
  plant: async (loopId, text) => {
    const file = new FileStore({ root }).stateFile(loopId)
    await mkdir(dirname(file), { recursive: true })
    await writeFile(file, text)
  },
  readQuarantined: (at) => readFile(at, 'utf8'),
}))
