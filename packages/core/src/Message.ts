/**
 * Messages of the conversation: system, user, assistant (with tool calls) and tool
 * results.
 *
 * @since 0.1.0
 */
import type { ToolCall } from "./ToolCall.js"
import { deepFreeze } from "./internal/immer.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface SystemMessage {
  readonly role: "system"
  readonly content: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface UserMessage {
  readonly role: "user"
  readonly content: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface AssistantMessage {
  readonly role: "assistant"
  readonly content: string
  readonly toolCalls: ReadonlyArray<ToolCall>
}

/**
 * The result of one tool call as the model will read it; `isError` marks blocked,
 * failed, unknown and invalid calls.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolMessage {
  readonly role: "tool"
  readonly toolCallId: string
  readonly toolName: string
  readonly content: string
  readonly isError: boolean
}

/**
 * @since 0.1.0
 * @category models
 */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage

/**
 * @since 0.1.0
 * @category models
 */
export type Role = Message["role"]

const noToolCalls: ReadonlyArray<ToolCall> = Object.freeze([])

/**
 * @since 0.1.0
 * @category constructors
 */
export const system = (content: string): SystemMessage => Object.freeze({ role: "system", content })

/**
 * @since 0.1.0
 * @category constructors
 */
export const user = (content: string): UserMessage => Object.freeze({ role: "user", content })

/**
 * @since 0.1.0
 * @category constructors
 */
export const assistant = (content: string, toolCalls: ReadonlyArray<ToolCall> = noToolCalls): AssistantMessage =>
  Object.freeze({ role: "assistant", content, toolCalls: deepFreeze(toolCalls) })

/**
 * @since 0.1.0
 * @category constructors
 */
export const tool = (
  result: { readonly toolCallId: string; readonly toolName: string; readonly content: string; readonly isError?: boolean },
): ToolMessage =>
  Object.freeze({
    role: "tool",
    toolCallId: result.toolCallId,
    toolName: result.toolName,
    content: result.content,
    isError: result.isError ?? false,
  })

/**
 * @since 0.1.0
 * @category guards
 */
export const isAssistant = (message: Message): message is AssistantMessage => message.role === "assistant"

/**
 * @since 0.1.0
 * @category guards
 */
export const isTool = (message: Message): message is ToolMessage => message.role === "tool"
