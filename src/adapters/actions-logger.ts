/**
 * The Logger port over `@actions/core`: groups per phase, annotations for locations. Every message is
 * redacted and has workflow commands defused before it reaches the log, because it may quote a
 * check's or an agent's output.
 */
import * as core from '@actions/core'
import { neutraliseWorkflowCommands } from '../domain/redact.js'
import type { Logger } from '../ports/logger.js'

type Location = { file?: string; line?: number; column?: number; title?: string }

function annotation(location: Location | undefined): core.AnnotationProperties {
  if (!location) return {}
  return {
    ...(location.title ? { title: location.title } : {}),
    ...(location.file ? { file: location.file } : {}),
    ...(location.line !== undefined ? { startLine: location.line } : {}),
    ...(location.column !== undefined ? { startColumn: location.column } : {}),
  }
}

/** A Logger for the action: `redact` is applied to every message first. */
export function actionsLogger(redact: (text: string) => string): Logger {
  const clean = (message: string) => neutraliseWorkflowCommands(redact(message))
  return {
    info: (message) => core.info(clean(message)),
    debug: (message) => core.debug(clean(message)),
    warning: (message, location) => core.warning(clean(message), annotation(location)),
    error: (message, location) => core.error(clean(message), annotation(location)),
    group: (name, body) => core.group(clean(name), body),
  }
}
