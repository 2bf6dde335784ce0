/**
 * A scripted Anthropic Messages API on loopback, for the real Claude Code CLI (`ANTHROPIC_BASE_URL`).
 * It answers `POST /v1/messages`, streaming or not, with the CLI's own tool calls (Read, then Edit)
 * as the scripted model (brain.ts) plans them, with realistic usage; other requests (a title, a quota
 * probe) get a short text. Every request is recorded; errors can be queued in the API's own shape.
 */
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { type Done, nextStep, repairFor, type Step, tokensOf } from './brain.js'

export interface RecordedRequest {
  method: string
  path: string
  headers: IncomingMessage['headers']
  body: Record<string, unknown> | null
  /** True for a request of the agent's own turn (it offers the CLI's tools). */
  agentTurn: boolean
  status: number
}

type Block = { type: string; [key: string]: unknown }
type Message = { role: string; content: string | Block[] }

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
}

export class AnthropicModelServer {
  readonly requests: RecordedRequest[] = []
  private readonly faults: { status: number; message: string }[] = []
  /** The plan each prompt called for, fixed when the prompt first arrives (the edit changes the files). */
  private readonly plans = new Map<string, ReturnType<typeof repairFor>>()
  private server!: Server
  url = ''

  private constructor(private readonly root: string) {}

  /** Starts on 127.0.0.1; `root` is the workspace the CLI edits (the model plans against it). */
  static async start(root: string): Promise<AnthropicModelServer> {
    const model = new AnthropicModelServer(root)
    model.server = createServer((req, res) => void model.handle(req, res))
    await new Promise<void>((resolve) => model.server.listen(0, '127.0.0.1', resolve))
    model.url = `http://127.0.0.1:${(model.server.address() as AddressInfo).port}`
    return model
  }

  /** The next `count` agent turns are answered with this HTTP error, in the API's error shape. */
  failNext(status: number, count: number, message = ERROR_TYPES[status] ?? 'error'): void {
    for (let i = 0; i < count; i++) this.faults.push({ status, message })
  }

  /** The loop prompts the CLI sent, in order (the user turns that carry `# Goal`). */
  prompts(): string[] {
    const seen: string[] = []
    for (const request of this.requests.filter((r) => r.agentTurn && r.status === 200)) {
      const messages = (request.body?.messages ?? []) as Message[]
      const last = loopPrompt(messages)
      if (last && !seen.includes(last.text)) seen.push(last.text)
    }
    return seen
  }

  async close(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const text = Buffer.concat(chunks).toString('utf8')
    let body: Record<string, unknown> | null = null
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : null
    } catch {
      body = null
    }
    const path = new URL(req.url ?? '/', this.url).pathname
    const agentTurn = Array.isArray(body?.tools) && (body.tools as Block[]).some((t) => t.name === 'Edit')
    const record: RecordedRequest = {
      method: req.method ?? '',
      path,
      headers: req.headers,
      body,
      agentTurn,
      status: 200,
    }
    this.requests.push(record)
    if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
      return json(res, 200, { input_tokens: tokensOf(text) })
    }
    if (req.method !== 'POST' || path !== '/v1/messages' || !body) {
      record.status = 404
      return json(res, 404, { type: 'error', error: { type: 'not_found_error', message: `no ${req.method} ${path}` } })
    }
    const fault = agentTurn ? this.faults.shift() : undefined
    if (fault) {
      record.status = fault.status
      return json(res, fault.status, {
        type: 'error',
        error: { type: ERROR_TYPES[fault.status] ?? 'api_error', message: fault.message },
      })
    }
    const messages = (body.messages ?? []) as Message[]
    const content = agentTurn ? this.agentAnswer(messages) : [{ type: 'text', text: 'Repairing the failing check' }]
    const usage = {
      input_tokens: tokensOf(text),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: tokensOf(JSON.stringify(content)),
    }
    const stopReason = content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'
    const message = {
      id: `msg_${randomUUID().replaceAll('-', '')}`,
      type: 'message',
      role: 'assistant',
      model: String(body.model ?? 'claude-sonnet-4-5'),
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage,
    }
    if (body.stream === true) return stream(res, message)
    return json(res, 200, message)
  }

  /** The brain's next step, as Claude Code's own tool calls on absolute paths. */
  private agentAnswer(messages: Message[]): Block[] {
    const prompt = loopPrompt(messages)
    if (!prompt) return [{ type: 'text', text: 'There is no task in this conversation.' }]
    if (!this.plans.has(prompt.text)) this.plans.set(prompt.text, repairFor(prompt.text, this.root))
    const step: Step = nextStep(this.plans.get(prompt.text) ?? null, doneSince(messages, prompt.index))
    const id = `toolu_${randomUUID().replaceAll('-', '').slice(0, 24)}`
    switch (step.kind) {
      case 'read':
        return [
          { type: 'text', text: `Reading ${step.file} first.` },
          { type: 'tool_use', id, name: 'Read', input: { file_path: join(this.root, step.file) } },
        ]
      case 'edit':
        return [
          {
            type: 'tool_use',
            id,
            name: 'Edit',
            input: { file_path: join(this.root, step.plan.file), old_string: step.plan.old, new_string: step.plan.new },
          },
        ]
      case 'done':
        return [{ type: 'text', text: step.text }]
    }
  }
}

function textOf(content: Message['content']): string {
  if (typeof content === 'string') return content
  return content
    .filter((b) => b.type === 'text')
    .map((b) => String(b.text ?? ''))
    .join('\n')
}

/** The latest user turn that holds a loop prompt, and its index. */
function loopPrompt(messages: Message[]): { text: string; index: number } | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]
    if (message?.role !== 'user') continue
    const text = textOf(message.content)
    if (text.includes('# Goal')) return { text: text.slice(text.indexOf('# Goal')), index: i }
  }
  return null
}

/** The tools that ran after the prompt: a tool_result that is an error is a failed edit (or read). */
function doneSince(messages: Message[], from: number): Done {
  const names = new Map<string, string>()
  const done: Done = []
  for (const message of messages.slice(from + 1)) {
    if (typeof message.content === 'string') continue
    for (const block of message.content) {
      if (block.type === 'tool_use') names.set(String(block.id), String(block.name))
      if (block.type !== 'tool_result') continue
      const name = names.get(String(block.tool_use_id))
      const edit = name === 'Edit' || name === 'MultiEdit' || name === 'Write'
      if (block.is_error === true) {
        if (edit) done.push('edit-failed')
      } else if (name === 'Read') done.push('read')
      else if (edit) done.push('edit')
    }
  }
  return done
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${randomUUID()}` })
  res.end(JSON.stringify(body))
}

/** The message as the Messages API streams it (server-sent events). */
function stream(
  res: ServerResponse,
  message: { content: Block[]; usage: Record<string, number> } & Record<string, unknown>,
): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'request-id': `req_${randomUUID()}`,
  })
  const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
  const { content, usage, stop_reason, stop_sequence, ...head } = message
  send('message_start', {
    type: 'message_start',
    message: { ...head, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
  })
  content.forEach((block, index) => {
    if (block.type === 'text') {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } })
      send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'text_delta', text: block.text },
      })
    } else {
      const { input, ...rest } = block
      send('content_block_start', { type: 'content_block_start', index, content_block: { ...rest, input: {} } })
      send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) },
      })
    }
    send('content_block_stop', { type: 'content_block_stop', index })
  })
  send('message_delta', {
    type: 'message_delta',
    delta: { stop_reason, stop_sequence },
    usage: { output_tokens: usage.output_tokens },
  })
  send('message_stop', { type: 'message_stop' })
  res.end()
}
