// A chat request as useChat sends it (POST body `{ id, messages, trigger, ... }`), from an
// untrusted client: read bounded, decoded (io-ts for the envelope, the AI SDK's own
// `safeValidateUIMessages` for the messages), and reduced to the one thing hookline takes
// from it: the new user text, or the person's approval responses.
import { Decision } from "@hookline/agent"
import { Data } from "effect"
import * as t from "io-ts"
import { safeValidateUIMessages, type UIMessage } from "ai"

/**
 * A chat request hookline cannot take: `field` names what was wrong (`body`, `id`,
 * `messages`, `messages[3].parts`), `message` says how. The request handler answers
 * it with status 400 (413 for a body over the limit).
 *
 * @since 0.1.0
 * @category errors
 */
export class ChatRequestInvalid extends Data.TaggedError("ChatRequestInvalid")<{
  readonly field: string
  readonly message: string
}> {}

/**
 * The bounds a chat request is held to.
 *
 * @since 0.1.0
 * @category models
 */
export interface ChatLimits {
  /** The body's size in bytes (default 1 MiB). */
  readonly maxBodyBytes: number
  /** The messages in the body (default 500). */
  readonly maxMessages: number
  /** The characters of the new user text (default 32,000). */
  readonly maxTextLength: number
}

/** @since 0.1.0 @category constants */
export const defaultLimits: ChatLimits = Object.freeze({ maxBodyBytes: 1024 * 1024, maxMessages: 500, maxTextLength: 32_000 })

/**
 * What a request asks: a new user turn, or decisions on the calls the run waits on.
 *
 * @since 0.1.0
 * @category models
 */
export type ChatTurn =
  | { readonly _tag: "UserTurn"; readonly chatId: string; readonly messageId: string; readonly text: string }
  | { readonly _tag: "Decisions"; readonly chatId: string; readonly decisions: ReadonlyArray<Decision.Decision> }

const chatIdPattern = /^[A-Za-z0-9_.:-]{1,128}$/

const ChatId = t.refinement(t.string, (s) => chatIdPattern.test(s), "chat id (1 to 128 of A-Z a-z 0-9 _ . : -)")

/** Whether a value is a chat id a run can take: 1 to 128 of A-Z a-z 0-9 _ . : - */
export const isChatId = (value: unknown): value is string => ChatId.is(value)

const invalid = (field: string, message: string) => new ChatRequestInvalid({ field, message })

const firstProblem = (errors: t.Errors): ChatRequestInvalid => {
  const error = errors[0]
  const path = (error?.context ?? []).map((c) => c.key).filter((k) => k !== "")
  const field = path.reduce((acc, key) => (/^\d+$/.test(key) ? `${acc}[${key}]` : acc === "" ? key : `${acc}.${key}`), "")
  const expected = error?.context.at(-1)?.type.name ?? "a value"
  return invalid(field === "" ? "body" : field, error?.message ?? `expected ${expected}`)
}

/**
 * Reads a request's body as JSON, never more than `maxBodyBytes` of it.
 *
 * @since 0.1.0
 * @category decoding
 */
export const readBody = async (request: Request, maxBodyBytes: number): Promise<unknown> => {
  if (request.method !== "POST") throw invalid("method", `expected POST, got ${request.method.slice(0, 20)}`)
  const declared = Number(request.headers.get("content-length") ?? "0")
  if (declared > maxBodyBytes) throw invalid("body", `over ${maxBodyBytes} bytes`)
  const chunks: Array<Uint8Array> = []
  let size = 0
  if (request.body !== null) {
    const reader = request.body.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      size += value.byteLength
      if (size > maxBodyBytes) {
        await reader.cancel()
        throw invalid("body", `over ${maxBodyBytes} bytes`)
      }
      chunks.push(value)
    }
  }
  const bytes = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    bytes.set(chunk, at)
    at += chunk.byteLength
  }
  const text = new TextDecoder().decode(bytes)
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw invalid("body", "expected a JSON object")
  }
}

const Envelope = t.type({ id: ChatId, messages: t.array(t.unknown) })

type ToolPart = Extract<UIMessage["parts"][number], { readonly toolCallId: string }>

const isToolPart = (part: UIMessage["parts"][number]): part is ToolPart => "toolCallId" in part && typeof part.toolCallId === "string"

const decisionsOf = (message: UIMessage, index: number): Array<Decision.Decision> | ChatRequestInvalid => {
  const decisions: Array<Decision.Decision> = []
  for (const [i, part] of message.parts.entries()) {
    if (!isToolPart(part) || part.state !== "approval-responded") continue
    const { approved, reason } = part.approval
    if (typeof approved !== "boolean") return invalid(`messages[${index}].parts[${i}].approval.approved`, "expected a boolean")
    decisions.push(approved ? Decision.approve(part.toolCallId) : Decision.reject(part.toolCallId, reason ?? "The user denied this call."))
  }
  return decisions
}

/**
 * Decodes a parsed chat request body to the turn it asks for. The client's messages
 * are validated whole, but only the last one is used: a user message's text, or an
 * assistant message's approval responses (`approval-responded` tool parts). Earlier
 * messages are the client's copy; the conversation is the stored run's.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeTurn = async (body: unknown, limits: ChatLimits = defaultLimits): Promise<ChatTurn> => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw invalid("body", "expected a JSON object")
  const envelope = Envelope.decode(body)
  if (envelope._tag === "Left") throw firstProblem(envelope.left)
  const { id, messages } = envelope.right
  if (messages.length === 0) throw invalid("messages", "expected at least one message")
  if (messages.length > limits.maxMessages) throw invalid("messages", `over ${limits.maxMessages} messages`)
  const validated = await safeValidateUIMessages({ messages })
  if (!validated.success) throw invalid("messages", validated.error.message.slice(0, 500))
  const index = validated.data.length - 1
  const last = validated.data[index]!
  if (last.role === "user") {
    const text = last.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n").trim()
    if (text === "") throw invalid(`messages[${index}].parts`, "expected the user's text")
    if (text.length > limits.maxTextLength) throw invalid(`messages[${index}].parts`, `text over ${limits.maxTextLength} characters`)
    if (last.id.length === 0 || last.id.length > 256) throw invalid(`messages[${index}].id`, "expected 1 to 256 characters")
    return { _tag: "UserTurn", chatId: id, messageId: last.id, text }
  }
  if (last.role === "assistant") {
    const decisions = decisionsOf(last, index)
    if (decisions instanceof ChatRequestInvalid) throw decisions
    if (decisions.length === 0) throw invalid(`messages[${index}]`, "expected a user message or approval responses")
    return { _tag: "Decisions", chatId: id, decisions }
  }
  throw invalid(`messages[${index}].role`, `expected "user" or "assistant", got "${last.role}"`)
}
