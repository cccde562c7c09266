// Pure but for hashing: an AI SDK `Agent` call (its call options and model messages, from
// an untrusted client) → the chat turn it asks for. A trailing user message is a new turn,
// keyed by the call's `messageId` or else by its place and text; trailing approval
// responses (`tool-approval-response`, after the last assistant message) are decisions.
import { Decision } from "@hookline/agent"
import { ChatRequestInvalid, defaultLimits, isChatId, type ChatLimits, type ChatTurn } from "../chat/chatRequest.js"

const invalid = (field: string, message: string) => new ChatRequestInvalid({ field, message })

type Loose = { readonly [key: string]: unknown }
const isObject = (value: unknown): value is Loose => typeof value === "object" && value !== null && !Array.isArray(value)

/** The checked call options: the chat id, the message id if given, the run context. */
export interface CallOptionsChecked {
  readonly chatId: string
  readonly messageId: string | undefined
  readonly context: { readonly context: unknown } | undefined
}

/** Checks an `Agent` call's `options`: `{ chatId, messageId?, context? }`. */
export const checkCallOptions = (options: unknown): CallOptionsChecked => {
  if (!isObject(options)) throw invalid("options", "expected { chatId, messageId?, context? }")
  const { chatId, messageId } = options
  if (!isChatId(chatId)) throw invalid("options.chatId", "expected 1 to 128 of A-Z a-z 0-9 _ . : -")
  if (messageId !== undefined && (typeof messageId !== "string" || messageId.length === 0 || messageId.length > 256)) {
    throw invalid("options.messageId", "expected 1 to 256 characters")
  }
  return { chatId, messageId, context: "context" in options ? { context: options["context"] } : undefined }
}

const textOf = (content: unknown, field: string): string => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) throw invalid(field, "expected a string or an array of parts")
  return content.flatMap((part: unknown) => (isObject(part) && part["type"] === "text" && typeof part["text"] === "string" ? [part["text"]] : [])).join("\n")
}

const hex = (bytes: ArrayBuffer): string => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("")

/**
 * The key of a user turn the caller gave no message id for: its place among the user
 * messages and a hash of its text. The same request again (a retry) has the same key;
 * the same words sent later are a new turn.
 */
export const derivedKey = async (ordinal: number, text: string): Promise<string> =>
  `ai-sdk:user:${ordinal}:${hex(await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))).slice(0, 32)}`

const decisionsIn = (messages: ReadonlyArray<unknown>, from: number): Array<Decision.Decision> => {
  const decisions: Array<Decision.Decision> = []
  for (let i = from; i < messages.length; i++) {
    const message = messages[i] as Loose
    if (!Array.isArray(message["content"])) continue
    for (const [j, part] of (message["content"] as ReadonlyArray<unknown>).entries()) {
      if (!isObject(part) || part["type"] !== "tool-approval-response") continue
      const field = `messages[${i}].content[${j}]`
      const { approvalId, approved, reason } = part
      if (typeof approvalId !== "string" || approvalId.length === 0 || approvalId.length > 256) throw invalid(`${field}.approvalId`, "expected 1 to 256 characters")
      if (typeof approved !== "boolean") throw invalid(`${field}.approved`, "expected a boolean")
      if (reason !== undefined && typeof reason !== "string") throw invalid(`${field}.reason`, "expected a string")
      // The approval id is the call id: hookline's model asks for each approval under its call's id.
      decisions.push(approved ? Decision.approve(approvalId) : Decision.reject(approvalId, (reason ?? "").slice(0, 2000) || "The user denied this call."))
    }
  }
  return decisions
}

/**
 * The turn an `Agent` call asks for, from its messages (`prompt` as a string is one user
 * message). Earlier messages are the client's copy and are not read: the conversation is
 * the stored run's.
 */
export const decodeAgentTurn = async (
  call: CallOptionsChecked,
  prompt: unknown,
  limits: ChatLimits = defaultLimits,
): Promise<ChatTurn> => {
  const messages: ReadonlyArray<unknown> = typeof prompt === "string" ? [{ role: "user", content: prompt }] : Array.isArray(prompt) ? prompt : []
  if (messages.length === 0) throw invalid("messages", "expected at least one message")
  if (messages.length > limits.maxMessages) throw invalid("messages", `over ${limits.maxMessages} messages`)
  if (!messages.every(isObject)) throw invalid("messages", "expected model messages")
  const roles = messages.map((m) => (m as Loose)["role"])
  const index = messages.length - 1
  if (roles[index] === "user") {
    const text = textOf((messages[index] as Loose)["content"], `messages[${index}].content`).trim()
    if (text === "") throw invalid(`messages[${index}].content`, "expected the user's text")
    if (text.length > limits.maxTextLength) throw invalid(`messages[${index}].content`, `text over ${limits.maxTextLength} characters`)
    const key = call.messageId ?? (await derivedKey(roles.filter((r) => r === "user").length, text))
    return { _tag: "UserTurn", chatId: call.chatId, messageId: key, text }
  }
  if (roles[index] === "tool") {
    const decisions = decisionsIn(messages, roles.lastIndexOf("assistant") + 1)
    if (decisions.length === 0) throw invalid(`messages[${index}]`, "expected a user message or approval responses")
    return { _tag: "Decisions", chatId: call.chatId, decisions }
  }
  throw invalid(`messages[${index}].role`, `expected "user" or "tool", got ${JSON.stringify(String(roles[index])).slice(0, 40)}`)
}
