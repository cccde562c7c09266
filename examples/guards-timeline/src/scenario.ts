// A scripted agent run without a model: the contexts the loop would make, passed
// through one HookStack. Shows guards, a tool policy and an audit hook at work.
import { pipe } from "effect/Function"
import {
  AgentState,
  Guards,
  Hook,
  HookContext,
  HookExecuted,
  HookStack,
  HookTrigger,
  HookTriggers,
  InferenceResponse,
  Message,
  Step,
  StopSignal,
  ToolCall,
  ToolExecution,
  Usage,
} from "@hookline/core"

export const denyShell: Hook = (ctx) =>
  ctx.toolCall?.name === "shell" ? HookContext.withToolExecutionBlocked(ctx, "shell is not allowed") : ctx

export const makeStack = (audit: (line: string) => void): HookStack =>
  pipe(
    HookStack.empty,
    HookStack.with(denyShell, { triggers: HookTrigger.BeforeToolUse, priority: 200, name: "policy:deny_shell" }),
    HookStack.with(
      Hook.observe((ctx) => audit(`${ctx.trigger}${ctx.toolCall ? ` ${ctx.toolCall.name}` : ""}`)),
      { triggers: HookTriggers.all, priority: -150, name: "log:audit", onError: "skip" },
    ),
    HookStack.concat(Guards.useGuards({ maxSteps: 3, maxTokens: 20_000 })),
  )

// What the "model" asks for in each step.
const script: ReadonlyArray<ReadonlyArray<{ readonly name: string; readonly arguments: { readonly [k: string]: string } }>> = [
  [{ name: "ls", arguments: { path: "." } }],
  [{ name: "shell", arguments: { command: "rm -rf /" } }],
  [{ name: "cat", arguments: { path: "README.md" } }],
  [{ name: "ls", arguments: { path: "src" } }],
]

export interface ScenarioResult {
  readonly events: ReadonlyArray<HookExecuted>
  readonly audit: ReadonlyArray<string>
  readonly final: AgentState
  readonly stack: HookStack
}

export const runScenario = (): ScenarioResult => {
  const audit: Array<string> = []
  const { sink, events } = HookExecuted.collect()
  const stack = makeStack((line) => audit.push(line))
  let clock = 0
  const now = () => (clock += 1)
  const dispatch = (ctx: HookContext) => HookStack.run(stack, ctx, { sink, now })
  const context = (trigger: HookTrigger, state: AgentState, extra: Partial<HookContext> = {}) =>
    HookContext.make({ trigger, state, createdAt: now(), ...extra })

  let state = AgentState.withStatus(AgentState.make({ id: "demo", messages: [Message.user("Tidy up the repo")] }), "running", now())
  state = dispatch(context("BeforeExecution", state)).state
  for (const [index, calls] of script.entries()) {
    state = dispatch(context("BeforeStep", state)).state
    if (state.execution.stopSignals.length > 0) break
    const toolCalls = calls.map((c, i) => ToolCall.make({ id: `call_${index}_${i}`, ...c }))
    const response = InferenceResponse.make({ text: "", toolCalls, usage: Usage.make(1_200, 80), modelId: "scripted" })
    state = AgentState.appendMessage(state, Message.assistant(response.text, response.toolCalls))
    const executions: Array<ToolExecution> = []
    for (const call of toolCalls) {
      const before = dispatch(context("BeforeToolUse", state, { toolCall: call }))
      state = before.state
      const execution = before.toolExecution ?? ToolExecution.success(before.toolCall ?? call, `ran ${call.name}`, before.createdAt)
      const after = dispatch(context("AfterToolUse", state, { toolCall: call, toolExecution: execution }))
      state = AgentState.appendMessage(after.state, ToolExecution.toMessage(after.toolExecution ?? execution))
      executions.push(after.toolExecution ?? execution)
    }
    state = AgentState.appendStep(state, Step.make({ index, startedAt: 0, response, toolExecutions: executions, completedAt: now() }))
    state = dispatch(context("AfterStep", state)).state
  }
  state = dispatch(context("OnStop", state)).state
  const highest = StopSignal.highest(state.execution.stopSignals)
  state = AgentState.withStatus(state, highest !== undefined && StopSignal.isHard(highest) ? "stopped" : "completed", now())
  state = dispatch(context("AfterExecution", state)).state
  return { events, audit, final: state, stack }
}
