/** Where a command's loop lives: the repository, the loop id and its state, and the adapters over them. */
import { join, resolve } from 'node:path'
import { AuditTrail } from '../adapters/audit-trail.js'
import { FileStore } from '../adapters/file-store.js'
import { createRedactor } from '../domain/redact.js'
import { secretValuesInEnv } from '../domain/secret-names.js'
import type { CliIo } from './io.js'
import { type Values, validLoopId } from './options.js'
import { defaultLoopId, repositoryRoot } from './repository.js'

/** Where the loop lives and what it reaches the world through, set up once per command. */
export interface LoopPlace {
  root: string
  stateDir: string
  loopId: string
  store: FileStore
  audit: AuditTrail
  redact: (text: string) => string
}

/** The repository, the loop and its state directory, and the store, audit trail and redactor for them. */
export async function loopPlace(values: Values, io: CliIo): Promise<LoopPlace> {
  const root = await repositoryRoot(io.cwd)
  const stateDir = resolve(root, values['state-dir'] ?? '.loop')
  const loopId = values['loop-id'] ? validLoopId(values['loop-id']) : await defaultLoopId(root)
  const redact = createRedactor(secretValuesInEnv(io.env))
  return {
    root,
    stateDir,
    loopId,
    store: new FileStore({ root: stateDir }),
    audit: new AuditTrail(join(stateDir, loopId), redact),
    redact,
  }
}
