// Pure: a stored run's state → the UI messages AI SDK UI shows for it (a page that
// reloads a chat starts from these). A user message is one UI message; the assistant's
// messages and tool results up to the next user message are one assistant UI message,
// a `step-start` before each model answer, as a live stream builds it. The model's
// reasoning is not in the messages: it comes from the step that answered.
import type { AgentState, Message, Step, ToolCall, ToolExecution } from "@hookline/core"
import type { UIMessage } from "ai"
import { errorTextOf } from "./uiChunks.js"

type Part = UIMessage["parts"][number]

interface Outcomes {
  readonly executions: ReadonlyMap<string, ToolExecution>
  readonly rejected: ReadonlySet<string>
  readonly pending: ReadonlySet<string>
}

const outcomesOf = (state: AgentState): Outcomes => {
  const executions = new Map<string, ToolExecution>()
  const rejected = new Set<string>()
  const steps = [...state.execution.steps]
  if (state.execution.suspendedStep !== undefined) steps.push(state.execution.suspendedStep)
  for (const step of steps) {
    for (const execution of step.toolExecutions) executions.set(execution.toolCall.id, execution)
    for (const [id, decision] of Object.entries(step.decisions ?? {})) if (decision._tag === "Reject") rejected.add(id)
  }
  const pending = new Set<string>()
  for (const call of state.execution.pendingCalls ?? []) {
    if (call.decision?._tag === "Reject") rejected.add(call.toolCall.id)
    if (call.decision === undefined) pending.add(call.toolCall.id)
  }
  return { executions, rejected, pending }
}

/**
 * The reasoning of each assistant message, from the step whose response it committed:
 * steps and messages in order, a message matched by its text and calls to the next step
 * that gave them (a hook's own assistant message, or a step a summary dropped the message
 * of, matches none).
 */
const reasoningOf = (state: AgentState, messages: ReadonlyArray<Message.Message>): ReadonlyMap<Message.Message, string> => {
  const out = new Map<Message.Message, string>()
  const steps: Array<Step.Step> = [...state.execution.steps]
  if (state.execution.suspendedStep !== undefined) steps.push(state.execution.suspendedStep)
  if (!steps.some((s) => s.response?.reasoning !== undefined)) return out
  const answered = steps.filter((s) => s.response !== undefined)
  let next = 0
  for (const m of messages) {
    if (m.role !== "assistant" || next >= answered.length) continue
    for (let i = next; i < answered.length; i++) {
      const response = (answered[i] as Step.Step).response!
      if (response.text === m.content && response.toolCalls.length === m.toolCalls.length && response.toolCalls.every((c, j) => c.id === m.toolCalls[j]?.id)) {
        if (response.reasoning !== undefined) out.set(m, response.reasoning)
        next = i + 1
        break
      }
    }
  }
  return out
}

const parsed = (content: string): unknown => {
  try {
    return JSON.parse(content)
  } catch {
    return content
  }
}

/**
 * Options of `toUIMessages`.
 *
 * @since 0.1.0
 * @category models
 */
export interface UIMessagesOptions {
  /**
   * How tool calls show: `"static"` (default) as `tool-<name>` parts, as `chatAgent`
   * streams them; `"dynamic"` as provider-executed `dynamic-tool` parts, as the AI SDK
   * streams the calls of `toAiSdkAgent`, so a page reloaded from the store answers an
   * approval in the shape that agent reads.
   */
  readonly toolParts?: "static" | "dynamic" | undefined
}

const toolPart = (call: ToolCall, outcomes: Outcomes, result: Message.ToolMessage | undefined, dynamic: boolean): Part => {
  const base = dynamic
    ? { type: "dynamic-tool" as const, toolName: call.name, toolCallId: call.id, input: call.arguments, providerExecuted: true }
    : { type: `tool-${call.name}` as const, toolCallId: call.id, input: call.arguments }
  const execution = outcomes.executions.get(call.id)
  if (outcomes.pending.has(call.id)) return { ...base, state: "approval-requested", approval: { id: call.id } } as Part
  if (outcomes.rejected.has(call.id)) return { ...base, state: "output-denied", approval: { id: call.id, approved: false } } as Part
  if (execution?.status === "success") return { ...base, state: "output-available", output: execution.output } as Part
  if (execution !== undefined) return { ...base, state: "output-error", errorText: errorTextOf(execution) } as Part
  if (result !== undefined) {
    return (result.isError ? { ...base, state: "output-error", errorText: result.content } : { ...base, state: "output-available", output: parsed(result.content) }) as Part
  }
  return { ...base, state: "input-available" } as Part
}

/**
 * The UI messages of a run's conversation (system messages left out), with the model's
 * reasoning where its step kept it (a `reasoning` part before the answer's text) and each
 * tool call's state: waiting for approval, denied, its output or error. Ids are
 * `<runId>-<index>`, stable for one state. With `toolParts: "dynamic"`, the parts
 * `toAiSdkAgent`'s stream makes.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toUIMessages = (state: AgentState, options: UIMessagesOptions = {}): Array<UIMessage> => {
  const dynamic = options.toolParts === "dynamic"
  const outcomes = outcomesOf(state)
  const messages = [...state.context.messages]
  const results = new Map<string, Message.ToolMessage>()
  for (const m of messages) if (m.role === "tool") results.set(m.toolCallId, m)
  const reasoning = reasoningOf(state, messages)
  const out: Array<UIMessage> = []
  let assistant: Array<Part> | undefined
  const flush = () => {
    if (assistant !== undefined && assistant.length > 0) out.push({ id: `${state.id}-${out.length}`, role: "assistant", parts: assistant })
    assistant = undefined
  }
  for (const m of messages) {
    if (m.role === "user") {
      flush()
      out.push({ id: `${state.id}-${out.length}`, role: "user", parts: [{ type: "text", text: m.content }] })
    } else if (m.role === "assistant") {
      assistant ??= []
      assistant.push({ type: "step-start" })
      const thought = reasoning.get(m)
      if (thought !== undefined) assistant.push({ type: "reasoning", text: thought, state: "done" })
      if (m.content !== "") assistant.push({ type: "text", text: m.content, state: "done" })
      for (const call of m.toolCalls) assistant.push(toolPart(call, outcomes, results.get(call.id), dynamic))
    }
  }
  flush()
  return out
}
