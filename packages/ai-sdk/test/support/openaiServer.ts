/**
 * A scripted OpenAI chat-completions server over real HTTP (node:http on 127.0.0.1,
 * port 0): POST /v1/chat/completions, JSON or `stream: true` SSE. Each request takes
 * the next reply from a queue; every request body is recorded. Tests wait on its
 * promises (a request arrived, a socket closed), never on timers.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { afterEach, beforeEach } from "vitest"

/** The API key the tests give their provider (the server checks none). */
export const apiKey = "sk-test-secret"

export interface ScriptedToolCall {
  readonly id: string
  readonly name: string
  readonly arguments: unknown
}

/** Usage as OpenAI reports it; `cached` and `reasoning` go in the `*_tokens_details`. */
export interface ScriptedUsage {
  readonly prompt: number
  readonly completion: number
  readonly cached?: number
  readonly reasoning?: number
}

export type Reply =
  | { readonly _tag: "Text"; readonly text: string; readonly usage?: ScriptedUsage }
  | { readonly _tag: "ToolCalls"; readonly toolCalls: ReadonlyArray<ScriptedToolCall>; readonly text?: string }
  | { readonly _tag: "Status"; readonly status: number; readonly message: string; readonly headers?: Record<string, string> }
  | { readonly _tag: "Malformed" }
  /** Streams `text` then destroys the socket without finishing (a stream request). */
  | { readonly _tag: "CutMidStream"; readonly text: string }
  /** Streams `text` then holds the reply open until the client goes away. */
  | { readonly _tag: "Hang"; readonly text: string }

export const reply = {
  text: (text: string, usage?: ScriptedUsage): Reply => ({ _tag: "Text", text, ...(usage ? { usage } : {}) }),
  toolCalls: (...toolCalls: ReadonlyArray<ScriptedToolCall>): Reply => ({ _tag: "ToolCalls", toolCalls }),
  status: (status: number, message: string, headers?: Record<string, string>): Reply => ({
    _tag: "Status",
    status,
    message,
    ...(headers ? { headers } : {}),
  }),
  malformed: (): Reply => ({ _tag: "Malformed" }),
  cutMidStream: (text: string): Reply => ({ _tag: "CutMidStream", text }),
  hang: (text: string): Reply => ({ _tag: "Hang", text }),
}

export interface RecordedRequest {
  readonly body: any
  readonly headers: IncomingMessage["headers"]
}

export interface OpenAiServer {
  readonly baseURL: string
  readonly requests: Array<RecordedRequest>
  /** Queues replies, in order. */
  readonly script: (...replies: ReadonlyArray<Reply>) => void
  /** Resolves when the n-th request (1-based) has arrived. */
  readonly request: (n: number) => Promise<RecordedRequest>
  /** Resolves when the socket of a `Hang` reply has closed (the client went away). */
  readonly hungUpSocketClosed: () => Promise<void>
  readonly close: () => Promise<void>
}

const completionId = (n: number) => `chatcmpl-${n}`

export const start = async (): Promise<OpenAiServer> => {
  const queue: Array<Reply> = []
  const requests: Array<RecordedRequest> = []
  const waiters = new Map<number, Array<(r: RecordedRequest) => void>>()
  const sockets = new Set<Socket>()
  let resolveHangClosed: () => void = () => {}
  let hangClosed = new Promise<void>((resolve) => {
    resolveHangClosed = resolve
  })

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "not found" } }))
      return
    }
    const body = JSON.parse(raw)
    const recorded: RecordedRequest = { body, headers: req.headers }
    requests.push(recorded)
    const n = requests.length
    for (const resolve of waiters.get(n) ?? []) resolve(recorded)
    waiters.delete(n)
    const next = queue.shift()
    if (next === undefined) {
      res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "no scripted reply" } }))
      return
    }
    const model = typeof body.model === "string" ? body.model : "unknown"
    const id = completionId(n)
    switch (next._tag) {
      case "Status":
        res.writeHead(next.status, { "content-type": "application/json", ...next.headers })
          .end(JSON.stringify({ error: { message: next.message, type: "scripted", code: null } }))
        return
      case "Malformed":
        if (body.stream === true) {
          res.writeHead(200, { "content-type": "text/event-stream" }).end("data: {\"id\": \"chatcmpl-broken\", \"choices\": [\n\ndata: [DONE]\n\n")
        } else {
          res.writeHead(200, { "content-type": "application/json" }).end("{\"id\": \"chatcmpl-broken\", \"choices\": [")
        }
        return
      case "Text":
      case "ToolCalls":
        if (body.stream === true) streamReply(res, id, model, next, body.stream_options?.include_usage === true)
        else jsonReply(res, id, model, next)
        return
      case "CutMidStream":
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.write(sse(chunk(id, model, { role: "assistant", content: next.text }, null)), () => res.socket?.destroy())
        return
      case "Hang":
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.socket?.once("close", () => resolveHangClosed())
        res.write(sse(chunk(id, model, { role: "assistant", content: next.text }, null)))
        return
    }
  }

  const server = createServer((req, res) => {
    let raw = ""
    req.setEncoding("utf8")
    req.on("data", (c: string) => {
      raw += c
    })
    req.on("end", () => handle(req, res, raw))
  })
  server.on("connection", (socket) => {
    sockets.add(socket)
    socket.once("close", () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...replies) => {
      queue.push(...replies)
    },
    request: (n) =>
      requests.length >= n
        ? Promise.resolve(requests[n - 1]!)
        : new Promise((resolve) => waiters.set(n, [...(waiters.get(n) ?? []), resolve])),
    hungUpSocketClosed: () => hangClosed,
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const socket of sockets) socket.destroy()
        hangClosed = Promise.resolve()
        server.close((error) => (error ? reject(error) : resolve()))
      }),
  }
}

const sse = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`

const chunk = (id: string, model: string, delta: unknown, finishReason: string | null) => ({
  id,
  object: "chat.completion.chunk",
  created: 1_700_000_000,
  model,
  choices: [{ index: 0, delta, finish_reason: finishReason }],
})

const usageOf = (r: Reply) =>
  r._tag === "Text" && r.usage
    ? {
      prompt_tokens: r.usage.prompt,
      completion_tokens: r.usage.completion,
      total_tokens: r.usage.prompt + r.usage.completion,
      ...(r.usage.cached === undefined ? {} : { prompt_tokens_details: { cached_tokens: r.usage.cached } }),
      ...(r.usage.reasoning === undefined ? {} : { completion_tokens_details: { reasoning_tokens: r.usage.reasoning } }),
    }
    : { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 }

const toolCallsOf = (r: Extract<Reply, { _tag: "ToolCalls" }>) =>
  r.toolCalls.map((c, index) => ({
    index,
    id: c.id,
    type: "function",
    function: { name: c.name, arguments: JSON.stringify(c.arguments) },
  }))

const jsonReply = (res: ServerResponse, id: string, model: string, r: Extract<Reply, { _tag: "Text" | "ToolCalls" }>) => {
  const message = r._tag === "Text"
    ? { role: "assistant", content: r.text }
    : { role: "assistant", content: r.text ?? null, tool_calls: toolCallsOf(r).map(({ index: _, ...c }) => c) }
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({
    id,
    object: "chat.completion",
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message, finish_reason: r._tag === "Text" ? "stop" : "tool_calls" }],
    usage: usageOf(r),
  }))
}

const streamReply = (
  res: ServerResponse,
  id: string,
  model: string,
  r: Extract<Reply, { _tag: "Text" | "ToolCalls" }>,
  includeUsage: boolean,
) => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
  res.write(sse(chunk(id, model, { role: "assistant", content: "" }, null)))
  if (r._tag === "Text") {
    // Two deltas, to see streaming as deltas.
    const half = Math.ceil(r.text.length / 2)
    for (const piece of [r.text.slice(0, half), r.text.slice(half)]) {
      if (piece !== "") res.write(sse(chunk(id, model, { content: piece }, null)))
    }
  } else {
    for (const call of toolCallsOf(r)) {
      const args = call.function.arguments
      const cut = Math.ceil(args.length / 2)
      res.write(sse(chunk(id, model, { tool_calls: [{ ...call, function: { name: call.function.name, arguments: args.slice(0, cut) } }] }, null)))
      res.write(sse(chunk(id, model, { tool_calls: [{ index: call.index, function: { arguments: args.slice(cut) } }] }, null)))
    }
  }
  res.write(sse(chunk(id, model, {}, r._tag === "Text" ? "stop" : "tool_calls")))
  if (includeUsage) res.write(sse({ id, object: "chat.completion.chunk", created: 1_700_000_000, model, choices: [], usage: usageOf(r) }))
  res.end("data: [DONE]\n\n")
}

/**
 * A fresh server for each test of the calling file: started in `beforeEach`, closed in
 * `afterEach`. The object answers for the server of the test that runs.
 */
export const serverPerTest = (): OpenAiServer => {
  let current: OpenAiServer | undefined
  beforeEach(async () => {
    current = await start()
  })
  afterEach(async () => {
    await current?.close()
    current = undefined
  })
  const now = (): OpenAiServer => {
    if (current === undefined) throw new Error("the scripted OpenAI server runs only inside a test")
    return current
  }
  return {
    get baseURL() {
      return now().baseURL
    },
    get requests() {
      return now().requests
    },
    script: (...replies) => now().script(...replies),
    request: (n) => now().request(n),
    hungUpSocketClosed: () => now().hungUpSocketClosed(),
    close: () => now().close(),
  }
}
