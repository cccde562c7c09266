/**
 * What `AgentLoop.stream` yields as a run goes: text and reasoning as they stream, tool calls and
 * results, hook executions, step ends and the run's end.
 *
 * @since 0.1.0
 */
import type { AgentError, AgentState, HookExecuted, Step, ToolCall, ToolExecution } from "@hookline/core"

/**
 * @since 0.1.0
 * @category models
 */
export type AgentEvent =
  /** The run begins, with the state it starts from. */
  | { readonly _tag: "RunStarted"; readonly state: AgentState }
  /**
   * Streaming only, once, after `RunStarted`: the model's text is held back until the
   * AfterInference hooks ran (one `TextDelta` per step), and why: the mode
   * (`textDeltas`), the hooks that may rewrite the text (none named for a custom
   * interceptor or an explicit `"checked"`), and a sentence for people.
   */
  | {
    readonly _tag: "TextChecked"
    readonly mode: "auto" | "checked"
    readonly hooks: ReadonlyArray<string>
    readonly reason: string
  }
  /** A piece of the model's text: as the driver streams it, or, when the loop checks text (`textDeltas`), all of it after the AfterInference hooks. */
  | { readonly _tag: "TextDelta"; readonly step: number; readonly text: string }
  /**
   * A piece of the model's reasoning (`InferenceResponse.reasoning`), when the model gives
   * it: as the driver streams it, or, when the loop checks text, all of it after the
   * AfterInference hooks (before the step's `TextDelta`). Its pieces, joined, are the
   * reasoning of the step's response.
   */
  | { readonly _tag: "ReasoningDelta"; readonly step: number; readonly text: string }
  /**
   * Drop the text and the reasoning streamed so far in this step: the model call that
   * streamed them failed and a wrap hook (a retry, a fallback) may call the model again.
   */
  | { readonly _tag: "TextReset"; readonly step: number }
  /** A tool call of the committed assistant message (after AfterInference hooks). */
  | { readonly _tag: "ToolCallRequested"; readonly step: number; readonly toolCall: ToolCall }
  /** A tool call's execution, as committed (after AfterToolUse hooks). */
  | { readonly _tag: "ToolResult"; readonly step: number; readonly execution: ToolExecution }
  /** A hook ran. */
  | { readonly _tag: "HookExecuted"; readonly event: HookExecuted }
  /** A hook of OnError or AfterExecution failed; reported, it hides no other error. */
  | { readonly _tag: "HookFailed"; readonly error: AgentError.HookFailed }
  /** A step ended; `state` is the state after its AfterStep hooks. */
  | { readonly _tag: "StepEnded"; readonly step: Step; readonly state: AgentState }
  /** The run ended; `state` is the final state, after AfterExecution hooks. */
  | { readonly _tag: "RunEnded"; readonly state: AgentState }
  /**
   * The run ended suspended on these calls (before RunEnded). A call whose subagent
   * waits lists the child's calls in its payload, each named by the path a `Decision`
   * names (`<parentCallId>/<childCallId>`).
   */
  | { readonly _tag: "Suspended"; readonly pendingCalls: ReadonlyArray<AgentState.PendingCall>; readonly state: AgentState }
  /**
   * An event of a subagent's run (`Tool.fromAgent`), nested under the call of this run
   * that runs it: `parent.runId` is this run's id, `parent.toolCallId` the call. The
   * subagent's own subagents nest once more. Every event of the child comes this way
   * (its `RunStarted` state has the child's run id and `parentId`), its HookExecuted
   * events included.
   */
  | {
    readonly _tag: "Subagent"
    readonly parent: { readonly runId: string; readonly toolCallId: string }
    readonly event: AgentEvent
  }

/**
 * @since 0.1.0
 * @category models
 */
export type AgentEventTag = AgentEvent["_tag"]

/**
 * @since 0.1.0
 * @category guards
 */
export const is = <T extends AgentEventTag>(tag: T) => (event: AgentEvent): event is Extract<AgentEvent, { readonly _tag: T }> =>
  event._tag === tag
