/**
 * Codecs for tool calls and the four kinds of message.
 *
 * A rule added to a codec of the state's parts (a field's bound, a value its builder
 * rewrites) goes into `itself.ts` too: the agent's entry keeps a state that check vouches
 * for without decoding it.
 *
 * @since 0.1.0
 */
import * as t from "io-ts"
import * as Message_ from "../Message.js"
import * as ToolCall_ from "../ToolCall.js"
import { array, string, struct, tagged } from "./combinators.js"
import { remembering } from "./built.js"
import { JsonValue } from "./json.js"

/**
 * A tool call; its arguments are any JSON value (`null` included).
 *
 * @since 0.1.0
 * @category codecs
 */
export const ToolCall = struct(
  "ToolCall",
  { id: string, name: string, arguments: JsonValue },
  // `ToolCall.make` turns `null` arguments into `{}`: keep what was encoded.
  ({ id, name, arguments: args }): ToolCall_.ToolCall =>
    args === null ? Object.freeze({ id, name, arguments: null }) : ToolCall_.make({ id, name, arguments: args }),
)

const system = struct(
  "SystemMessage",
  { role: t.literal("system"), content: string },
  ({ content }) => Message_.system(content),
)

const user = struct(
  "UserMessage",
  { role: t.literal("user"), content: string },
  ({ content }) => Message_.user(content),
)

const assistant = struct(
  "AssistantMessage",
  { role: t.literal("assistant"), content: string, toolCalls: array(ToolCall) },
  ({ content, toolCalls }) => Message_.assistant(content, toolCalls),
)

const tool = struct(
  "ToolMessage",
  { role: t.literal("tool"), toolCallId: string, toolName: string, content: string, isError: t.boolean },
  ({ toolCallId, toolName, content, isError }) => Message_.tool({ toolCallId, toolName, content, isError }),
)

/** @internal `Message` without remembering what it builds: the codecs built on it. */
export const plainMessage = tagged("Message", "role", { system, user, assistant, tool })

/**
 * A message of any role, dispatched on `role`.
 *
 * @since 0.1.0
 * @category codecs
 */
export const Message = remembering(plainMessage)
