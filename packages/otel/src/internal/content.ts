// Content in the GenAI conventions' JSON shape (gen_ai.input.messages, output.messages,
// system_instructions, tool arguments and results). Used only with `captureContent`;
// each value is the JSON text of what the hooks left (after redaction), cut at a bound.
import type { InferenceRequest, InferenceResponse, JsonValue, Message, ToolCall } from "@hookline/core"

/** The longest attribute value this package writes, in characters. */
export const maxLength = 64 * 1024

const cut = (s: string): string => (s.length <= maxLength ? s : `${s.slice(0, maxLength)}…[truncated]`)

/** JSON text of a value (a value that cannot be written is its kind only). */
export const json = (u: unknown): string => {
  try {
    return cut(JSON.stringify(u) ?? "null")
  } catch {
    return `"[${typeof u}]"`
  }
}

/** hookline's finish reasons in the conventions' words. */
export const finishReason = (reason: InferenceResponse.FinishReason): string =>
  reason === "tool-calls" ? "tool_call" : reason === "content-filter" ? "content_filter" : reason

const toolCallPart = (call: ToolCall) => ({ type: "tool_call", id: call.id, name: call.name, arguments: call.arguments })

const messageOf = (m: Message): { readonly role: string; readonly parts: ReadonlyArray<unknown> } => {
  switch (m.role) {
    case "assistant":
      return { role: "assistant", parts: [...(m.content === "" ? [] : [{ type: "text", content: m.content }]), ...m.toolCalls.map(toolCallPart)] }
    case "tool":
      return { role: "tool", parts: [{ type: "tool_call_response", id: m.toolCallId, response: m.content }] }
    default:
      return { role: m.role, parts: [{ type: "text", content: m.content }] }
  }
}

/** `gen_ai.input.messages` of a request. */
export const inputMessages = (request: InferenceRequest): string => json(request.messages.toArray().map(messageOf))

/** `gen_ai.system_instructions` of a request, or `undefined` with no system prompt. */
export const systemInstructions = (request: InferenceRequest): string | undefined =>
  request.systemPrompt === "" ? undefined : json([{ type: "text", content: request.systemPrompt }])

/** `gen_ai.output.messages` of a response. */
export const outputMessages = (response: InferenceResponse): string =>
  json([{
    role: "assistant",
    parts: [...(response.text === "" ? [] : [{ type: "text", content: response.text }]), ...response.toolCalls.map(toolCallPart)],
    finish_reason: finishReason(response.finishReason),
  }])

/** A tool call's arguments or result as an attribute value. */
export const value = (u: JsonValue): string => (typeof u === "string" ? cut(u) : json(u))
