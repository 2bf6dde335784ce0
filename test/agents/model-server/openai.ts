/**
 * A scripted OpenAI Responses API on loopback, for the real Codex CLI (a `model_providers` entry with
 * `base_url` and `wire_api = "responses"` in its config). It answers `POST /v1/responses` as a stream
 * of the API's events with Codex's own tool calls (a shell command to read the file, then its
 * `apply_patch` tool) as the scripted model (brain.ts) plans them, with realistic usage. Every request
 * is recorded; errors can be queued in the API's own shape.
 */
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type Done, nextStep, planLines, repairFor, tokensOf } from './brain.js'

export interface RecordedRequest {
  method: string
  path: string
  headers: IncomingMessage['headers']
  body: Record<string, unknown> | null
  status: number
}

type Item = { type: string; [key: string]: unknown }

const ERROR_CODES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'invalid_api_key',
  429: 'rate_limit_exceeded',
  500: 'server_error',
  503: 'server_error',
}

export class OpenAIModelServer {
  readonly requests: RecordedRequest[] = []
  private readonly faults: { status: number; message: string }[] = []
  private readonly plans = new Map<string, ReturnType<typeof repairFor>>()
  private server!: Server
  url = ''

  private constructor(private readonly root: string) {}

  /** Starts on 127.0.0.1; `root` is the workspace the CLI edits (the model plans against it). */
  static async start(root: string): Promise<OpenAIModelServer> {
    const model = new OpenAIModelServer(root)
    model.server = createServer((req, res) => void model.handle(req, res))
    await new Promise<void>((resolve) => model.server.listen(0, '127.0.0.1', resolve))
    model.url = `http://127.0.0.1:${(model.server.address() as AddressInfo).port}`
    return model
  }

  /** Codex's config.toml: this server as its model provider, with its own retries bounded. */
  configToml(model = 'gpt-5.5'): string {
    return [
      `model = "${model}"`,
      'model_provider = "scripted"',
      '[model_providers.scripted]',
      'name = "scripted model"',
      `base_url = "${this.url}/v1"`,
      'wire_api = "responses"',
      'env_key = "OPENAI_API_KEY"',
      'request_max_retries = 1',
      'stream_max_retries = 1',
      '',
    ].join('\n')
  }

  /** The next `count` requests are answered with this HTTP error, in the API's error shape. */
  failNext(status: number, count: number, message = ERROR_CODES[status] ?? 'error'): void {
    for (let i = 0; i < count; i++) this.faults.push({ status, message })
  }

  /** The loop prompts Codex sent, in order. */
  prompts(): string[] {
    const seen: string[] = []
    for (const request of this.requests.filter((r) => r.status === 200)) {
      const prompt = loopPrompt((request.body?.input ?? []) as Item[])
      if (prompt && !seen.includes(prompt.text)) seen.push(prompt.text)
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
    const record: RecordedRequest = { method: req.method ?? '', path, headers: req.headers, body, status: 200 }
    this.requests.push(record)
    if (req.method !== 'POST' || path !== '/v1/responses' || !body) {
      record.status = 404
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({ error: { message: `no ${req.method} ${path}`, type: 'invalid_request_error', code: null } }),
      )
      return
    }
    const fault = this.faults.shift()
    if (fault) {
      record.status = fault.status
      res.writeHead(fault.status, { 'content-type': 'application/json' })
      const type = fault.status === 401 ? 'invalid_request_error' : (ERROR_CODES[fault.status] ?? 'server_error')
      res.end(JSON.stringify({ error: { message: fault.message, type, code: ERROR_CODES[fault.status] ?? null } }))
      return
    }
    const output = this.answer((body.input ?? []) as Item[])
    const usage = {
      input_tokens: tokensOf(text),
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: tokensOf(JSON.stringify(output)),
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 0,
    }
    usage.total_tokens = usage.input_tokens + usage.output_tokens
    const id = `resp_${randomUUID().replaceAll('-', '')}`
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    const send = (data: Item) => res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`)
    send({ type: 'response.created', response: { id, status: 'in_progress' } })
    output.forEach((item, index) => {
      send({ type: 'response.output_item.added', output_index: index, item })
      send({ type: 'response.output_item.done', output_index: index, item })
    })
    send({ type: 'response.completed', response: { id, status: 'completed', output, usage } })
    res.end()
  }

  /** The brain's next step, as Codex's own tools: a shell command to read, `apply_patch` to edit. */
  private answer(input: Item[]): Item[] {
    const prompt = loopPrompt(input)
    const message = (text: string): Item => ({
      type: 'message',
      id: `msg_${randomUUID().replaceAll('-', '')}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text, annotations: [] }],
    })
    if (!prompt) return [message('There is no task in this conversation.')]
    if (!this.plans.has(prompt.text)) this.plans.set(prompt.text, repairFor(prompt.text, this.root))
    const plan = this.plans.get(prompt.text) ?? null
    const step = nextStep(plan, doneSince(input, prompt.index))
    const callId = `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`
    switch (step.kind) {
      case 'read':
        return [
          message(`Reading ${step.file} first.`),
          {
            type: 'function_call',
            id: `fc_${callId}`,
            call_id: callId,
            name: 'exec_command',
            arguments: JSON.stringify({ cmd: `cat ${step.file}` }),
            status: 'completed',
          },
        ]
      case 'edit': {
        const lines = planLines(this.root, step.plan)
        if (!lines) return [message(`${step.plan.file} no longer holds what I meant to change.`)]
        const patch = [
          '*** Begin Patch',
          `*** Update File: ${step.plan.file}`,
          '@@',
          ...lines.old.map((line) => `-${line}`),
          ...lines.new.map((line) => `+${line}`),
          '*** End Patch',
        ].join('\n')
        return [
          {
            type: 'custom_tool_call',
            id: `ctc_${callId}`,
            call_id: callId,
            name: 'apply_patch',
            input: patch,
            status: 'completed',
          },
        ]
      }
      case 'done':
        return [message(step.text)]
    }
  }
}

function textOf(item: Item): string {
  const content = item.content
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return (content as Item[]).map((part) => String(part.text ?? '')).join('\n')
}

/** The latest user message that holds a loop prompt, and its index. */
function loopPrompt(input: Item[]): { text: string; index: number } | null {
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i]
    if (item?.type !== 'message' || item.role !== 'user') continue
    const text = textOf(item)
    if (text.includes('# Goal')) return { text: text.slice(text.indexOf('# Goal')), index: i }
  }
  return null
}

/** The tools that ran after the prompt: a shell command's output (read), an accepted patch (edit). */
function doneSince(input: Item[], from: number): Done {
  const done: Done = []
  for (const item of input.slice(from + 1)) {
    if (item.type === 'function_call_output') done.push('read')
    if (item.type === 'custom_tool_call_output') {
      done.push(/error|failed|invalid/i.test(JSON.stringify(item.output)) ? 'edit-failed' : 'edit')
    }
  }
  return done
}
