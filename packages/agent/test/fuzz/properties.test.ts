// The fuzzer's checkers can fail: each is fed a real recording that passes, then the
// same recording broken on purpose (a second AfterExecution, a blocked tool that ran,
// hooks out of order, …), and must report the violation.
import { describe, expect, it } from "vitest"
import { AgentState, AppendLog, HookContext, Message, StopSignal, Step, type HookExecuted } from "@hookline/core"
import {
  answersEveryCall,
  blockedNeverRuns,
  commitsWhatHooksReturned,
  dispatchesOf,
  firesInExplainedOrder,
  frozen,
  hardStopsHold,
  interruptedPermissionDenies,
  keepsMessages,
  loadsBack,
  oneEnd,
  recordConsistent,
  recordsEveryAttempt,
  resetsRetriedText,
  resumesCleanly,
  sameWhenStreamed,
  statePersists,
  streamsCheckedText,
  terminates,
  violations,
  type Checker,
} from "./properties.js"
import { Decision } from "@hookline/agent"
import { chainOf, firstUnfrozen, runScenario, type Entry, type Recording, type Resumption } from "./run.js"
import type { HookSpec, Scenario, WrapSpec } from "./scenario.js"

const hook = (name: string, triggers: HookSpec["triggers"], behaviour: HookSpec["behaviour"], extra: Partial<HookSpec> = {}): HookSpec => ({
  name,
  triggers,
  priority: 0,
  onError: "fail",
  lift: "pure",
  wait: { _tag: "None" },
  behaviour,
  fromStep: 0,
  ...extra,
})

// A run with a blocked call, an allowed one, a state edit on AfterStep and a final answer.
const base: Scenario = {
  hooks: [
    hook("fuzz:observer", "all", { _tag: "Pass" }),
    hook("h1:block", ["BeforeToolUse"], { _tag: "Block" }, { fromStep: 1 }),
    hook("h2:annotate", ["AfterStep"], { _tag: "Annotate", how: "state" }),
    hook("h3:permission", ["BeforeToolUse"], { _tag: "Permission", impl: "hook", decision: "allow", timeoutMs: undefined }, { lift: "effect" }),
  ],
  guardsAt: 1,
  guards: { maxSteps: 5, maxTokens: null, maxExecutionTime: null, finishReasons: null },
  script: [
    { _tag: "ToolCalls", calls: [{ _tag: "Valid", tool: "add" }], text: "", usage: { inputTokens: 1, outputTokens: 1 } },
    { _tag: "ToolCalls", calls: [{ _tag: "Valid", tool: "add" }, { _tag: "Valid", tool: "echo" }], text: "", usage: { inputTokens: 1, outputTokens: 1 } },
    { _tag: "Text", text: "done", chunked: false, finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } },
  ],
  toolConcurrency: "sequential",
  mode: "run",
  interceptor: "marked",
  textDeltas: "auto",
  abort: undefined,
  input: "question",
  twin: true,
}

const record = (s: Partial<Scenario> = {}) => runScenario({ ...base, ...s })

const withLog = (r: Recording, log: ReadonlyArray<Entry>): Recording => ({ ...r, log })

const indexOf = (r: Recording, p: (e: Entry) => boolean): number => {
  const i = r.log.findIndex(p)
  if (i < 0) throw new Error("no such entry in the recording")
  return i
}

const insertAt = (log: ReadonlyArray<Entry>, i: number, ...entries: ReadonlyArray<Entry>) => [...log.slice(0, i), ...entries, ...log.slice(i)]

const reports = (check: Checker, r: Recording, pattern: RegExp) => {
  const found = check(r)
  expect(found.some((v) => pattern.test(v)), `expected a violation matching ${pattern}, got ${JSON.stringify(found)}`).toBe(true)
}

describe("the fuzzer's properties", () => {
  it("hold for a real run (and its streamed twin), marked or not", async () => {
    for (const interceptor of ["marked", "stack"] as const) {
      const r = await record({ interceptor })
      expect(r.twin).toBeDefined()
      expect(violations(r)).toEqual([])
      // The run did what the base scenario says: the second step's calls were blocked.
      expect(r.log.filter((e) => e._tag === "ToolRun").map((e) => e._tag === "ToolRun" && e.callId)).toEqual(["call_1"])
    }
  })

  it("groups the log into the same dispatches with and without the marking interceptor", async () => {
    const marked = dispatchesOf(await record({ interceptor: "marked" })).map((d) => `${d.trigger}:${d.names.join(",")}`)
    const unmarked = dispatchesOf(await record({ interceptor: "stack" })).map((d) => `${d.trigger}:${d.names.join(",")}`)
    expect(unmarked).toEqual(marked)
  })

  describe("terminates", () => {
    it("reports more steps than maxSteps", async () => {
      reports(terminates, { ...(await record()), maxSteps: 1 }, /3 steps recorded, more than maxSteps 1/)
    })
    it("reports a run that had to be stopped, and a run whose Effect died", async () => {
      const r = await record()
      reports(terminates, { ...r, exit: "runaway" }, /did not end on its own/)
      reports(terminates, { ...r, exit: "defect", defect: "boom" }, /Effect died/)
      expect(violations({ ...r, exit: "runaway" }).map((v) => v.property)).toEqual(["terminates"])
    })
  })

  describe("oneEnd", () => {
    it("reports AfterExecution twice", async () => {
      const r = await record()
      const start = indexOf(r, (e) => e._tag === "DispatchStart" && e.trigger === "AfterExecution")
      reports(oneEnd, withLog(r, [...r.log, ...r.log.slice(start)]), /AfterExecution ran 2 times/)
    })
    it("reports a status that disagrees with the stop signals", async () => {
      const r = await record()
      const final = r.final as AgentState
      const failed = AgentState.withStatus(final, "failed")
      reports(oneEnd, { ...r, final: failed }, /but the run ended failed/)
      const i = indexOf(r, (e) => e._tag === "DispatchStart" && e.trigger === "AfterExecution")
      const start = r.log[i] as Extract<Entry, { _tag: "DispatchStart" }>
      const ctx = HookContext.withState(start.ctx, AgentState.withStopSignal(start.ctx.state, StopSignal.make("StepsLimitReached", "limit", "guard")))
      reports(oneEnd, withLog(r, r.log.map((e, j) => (j === i ? { ...start, ctx } : e))), /status completed with the stop signals \[.*StepsLimitReached from guard/)
    })
    it("reports an abort that did not stop the run", async () => {
      const r = await record()
      reports(oneEnd, withLog(r, insertAt(r.log, 3, { _tag: "Abort", via: "signal", timing: "now" })), /aborted at log\[3\] before the run finished, but it ended completed/)
    })
    it("reports OnError without errors, and an error that never reached OnError", async () => {
      const r = await record()
      const enter = r.log.find((e) => e._tag === "Enter" && e.trigger === "AfterStep") as Extract<Entry, { _tag: "Enter" }>
      const ctx = HookContext.make({ trigger: "OnError", state: enter.ctx.state, createdAt: enter.ctx.createdAt })
      const at = indexOf(r, (e) => e._tag === "DispatchStart" && e.trigger === "AfterExecution")
      const onError: ReadonlyArray<Entry> = [
        { _tag: "DispatchStart", trigger: "OnError", ctx },
        { _tag: "DispatchEnd", trigger: "OnError", outcome: "success", ctx, unfrozen: undefined },
      ]
      reports(oneEnd, withLog(r, insertAt(r.log, at, ...onError)), /OnError at log\[\d+\] without errors/)
      const failed: HookExecuted = { _tag: "HookExecuted", trigger: "AfterStep", hook: "h2:annotate", startedAt: 0, durationMs: 0, outcome: "failed" }
      const afterStep = indexOf(r, (e) => e._tag === "Event" && e.event.trigger === "AfterStep")
      reports(oneEnd, withLog(r, insertAt(r.log, afterStep + 1, { _tag: "Event", event: failed })), /was followed by .*not OnError/)
    })
  })

  describe("keepsMessages", () => {
    it("reports a committed message the final state lost", async () => {
      const r = await record()
      const final = r.final as AgentState
      const shorter = AgentState.update(final, (draft) => {
        draft.context.messages = AgentState.make({ messages: final.context.messages.slice(0, 2) }).context.messages
      })
      reports(keepsMessages, { ...r, final: shorter }, /held messages the final state lost/)
    })
    it("reports a tool result out of call order", async () => {
      const r = await record()
      const final = r.final as AgentState
      const messages = [...final.context.messages]
      const i = messages.findIndex((m) => m.role === "assistant" && m.toolCalls.length === 2)
      const swapped = [...messages.slice(0, i + 1), messages[i + 2] as Message, messages[i + 1] as Message, ...messages.slice(i + 3)]
      reports(keepsMessages, { ...r, final: AgentState.make({ id: final.id, messages: swapped }) }, /is the result of call_3, expected call_2/)
    })
  })

  describe("frozen", () => {
    it("finds the first unfrozen path, AppendLog items included", () => {
      expect(firstUnfrozen(Object.freeze({ a: Object.freeze({ b: [1] }) }))).toBe(".a.b")
      expect(firstUnfrozen({})).toBe("(root)")
      const state = AgentState.make({ messages: [Message.user("hi")] })
      expect(firstUnfrozen(state)).toBeUndefined()
      const unfrozenItem = AgentState.appendMessage(state, Message.user("x"))
      expect(firstUnfrozen({ ...unfrozenItem })).toBe("(root)")
    })
    it("reports a context a hook got unfrozen", async () => {
      const r = await record()
      const i = indexOf(r, (e) => e._tag === "Enter")
      const enter = r.log[i] as Extract<Entry, { _tag: "Enter" }>
      reports(frozen, withLog(r, r.log.map((e, j) => (j === i ? { ...enter, unfrozen: ".state.metadata" } : e))), /got a context not frozen at \.state\.metadata/)
    })
  })

  describe("blockedNeverRuns", () => {
    it("reports a blocked call that executed", async () => {
      const r = await record()
      const end = indexOf(r, (e) => e._tag === "DispatchEnd" && e.trigger === "BeforeToolUse" && e.ctx?.toolExecutionBlocked === true)
      const id = (r.log[end] as Extract<Entry, { _tag: "DispatchEnd" }>).ctx?.toolCall?.id as string
      reports(blockedNeverRuns, withLog(r, insertAt(r.log, end + 1, { _tag: "ToolRun", callId: id, tool: "add", args: { a: 2, b: 3 }, unfrozen: undefined })), /ran for the blocked call call_2/)
    })
    it("reports a call that executed twice, and a block lifted inside a dispatch", async () => {
      const r = await record()
      const run = r.log.find((e) => e._tag === "ToolRun") as Entry
      reports(blockedNeverRuns, withLog(r, [...r.log, run]), /call call_1 executed 2 times/)
      const i = indexOf(r, (e) => e._tag === "Enter" && e.trigger === "BeforeToolUse" && e.hook === "h3:permission" && e.ctx.toolExecutionBlocked)
      const enter = r.log[i] as Extract<Entry, { _tag: "Enter" }>
      const lifted = { ...enter, ctx: Object.freeze({ ...enter.ctx, toolExecutionBlocked: false, toolExecution: undefined }) }
      reports(blockedNeverRuns, withLog(r, r.log.map((e, j) => (j === i ? lifted : e))), /saw the call unblocked after/)
    })
  })

  describe("interruptedPermissionDenies", () => {
    it("reports a call that ran after its permission hook was interrupted", async () => {
      const r = await record()
      const i = indexOf(r, (e) => e._tag === "Permission" && e.callId === "call_1" && e.phase === "answered")
      reports(
        interruptedPermissionDenies,
        withLog(r, r.log.map((e, j) => (j === i ? { _tag: "Permission", hook: "h3:permission", callId: "call_1", phase: "interrupted" } : e))),
        /tool add ran for call call_1 whose permission hook was interrupted/,
      )
    })
  })

  describe("firesInExplainedOrder", () => {
    it("reports hooks out of explain's order", async () => {
      const r = await record()
      const i = indexOf(r, (e) => e._tag === "Event" && e.event.trigger === "BeforeToolUse")
      const log = [...r.log]
      const later = log.findIndex((e, j) => j > i && e._tag === "Event" && e.event.trigger === "BeforeToolUse")
      ;[log[i], log[later]] = [log[later] as Entry, log[i] as Entry]
      reports(firesInExplainedOrder, withLog(r, log), /BeforeToolUse dispatch #\d+ at log\[\d+\] ran \[h1:block, fuzz:observer, h3:permission\], explain says/)
    })
    it("reports a dispatch cut short with no failure and no abort, and an explain that disagrees with the registrations", async () => {
      const r = await record()
      const i = indexOf(r, (e) => e._tag === "Event" && e.event.trigger === "AfterStep" && e.event.hook === "h2:annotate")
      reports(firesInExplainedOrder, withLog(r, r.log.filter((_, j) => j !== i)), /stopped after \[fuzz:observer\] of \[fuzz:observer, h2:annotate\] with no failure and no abort/)
      reports(firesInExplainedOrder, { ...r, expectedOrder: { ...r.expectedOrder, AfterStep: ["h2:annotate", "fuzz:observer"] } }, /explain lists AfterStep/)
    })
    it("reports an event that misstates what its hook did", async () => {
      const r = await record()
      const i = indexOf(r, (e) => e._tag === "Event" && e.event.hook === "h2:annotate")
      const e = r.log[i] as Extract<Entry, { _tag: "Event" }>
      reports(firesInExplainedOrder, withLog(r, r.log.map((x, j) => (j === i ? { ...e, event: { ...e.event, outcome: "unchanged" as const } } : x))), /h2:annotate on AfterStep was reported unchanged, it returned a new context/)
    })
  })

  describe("hardStopsHold", () => {
    it("reports a loop that went on after OnStop with a hard stop", async () => {
      const r = await record({ hooks: [...base.hooks, hook("h4:continue", ["OnStop"], { _tag: "Continue", message: undefined })], guards: { ...base.guards, maxSteps: 4 } })
      expect(violations(r)).toEqual([])
      const i = indexOf(r, (e) => e._tag === "DispatchStart" && e.trigger === "OnStop")
      const start = r.log[i] as Extract<Entry, { _tag: "DispatchStart" }>
      const ctx = HookContext.withStopSignal(start.ctx, StopSignal.make("TokenLimitReached", "limit", "guard:token_limit"))
      reports(hardStopsHold, withLog(r, r.log.map((e, j) => (j === i ? { ...start, ctx } : e))), /went on after OnStop .* hard stop TokenLimitReached/)
    })
  })

  describe("commitsWhatHooksReturned, streamsCheckedText", () => {
    it("report a tool that got other arguments, a response that was not committed and streamed text that was not", async () => {
      const r = await record({ hooks: [...base.hooks, hook("h5:edit", ["BeforeToolUse"], { _tag: "EditArguments" })] })
      expect(violations(r)).toEqual([])
      const i = indexOf(r, (e) => e._tag === "ToolRun")
      const run = r.log[i] as Extract<Entry, { _tag: "ToolRun" }>
      expect(run.args).toEqual({ a: 10, b: 20 })
      reports(commitsWhatHooksReturned, withLog(r, r.log.map((e, j) => (j === i ? { ...run, args: { a: 2, b: 3 } } : e))), /tool add got \{"a":2,"b":3\} for call_1, BeforeToolUse returned \{"a":10,"b":20\}/)
      const final = r.final as AgentState
      const rewritten = AgentState.make({ id: final.id, messages: [...final.context.messages].map((m) => (m.role === "assistant" && m.content === "done" ? Message.assistant("DONE") : m)) })
      reports(commitsWhatHooksReturned, { ...r, final: rewritten }, /is "DONE" \[\], AfterInference returned "done"/)
      const s = await record({ mode: "stream", twin: false })
      expect(violations(s)).toEqual([])
      const events = [...(s.streamEvents ?? [])]
      const at = events.findIndex((e) => e._tag === "TextDelta")
      events.splice(at, 1, { _tag: "TextDelta", step: 2, text: "do" }, { _tag: "TextDelta", step: 2, text: "ne" })
      reports(streamsCheckedText, { ...s, streamEvents: events }, /step 2 streamed \["do","ne"\], its committed text is "done"/)
      events.push({ _tag: "ReasoningDelta", step: 2, text: "unsaid" })
      reports(streamsCheckedText, { ...s, streamEvents: events }, /step 2 streamed \["unsaid"\], its committed reasoning is ""/)
    })
  })

  describe("statePersists, recordConsistent, sameWhenStreamed", () => {
    it("report a lost state edit, a usage that does not add up and a stream that differs", async () => {
      const r = await record()
      const final = r.final as AgentState
      reports(statePersists, { ...r, final: AgentState.update(final, (d) => void delete d.metadata["h2:annotate"]) }, /h2:annotate wrote "h2:annotate" into the state/)
      reports(recordConsistent, { ...r, final: AgentState.update(final, (d) => void (d.execution.usage = { inputTokens: 99, outputTokens: 0 })) }, /usage 99\+0 is not the sum/)
      const twin = r.twin as Recording
      const i = indexOf(twin, (e) => e._tag === "Enter" && e.trigger === "AfterStep")
      const enter = twin.log[i] as Extract<Entry, { _tag: "Enter" }>
      const edited = { ...enter, ctx: HookContext.withMetadata(enter.ctx, { streamed: true }) }
      reports(sameWhenStreamed, { ...r, twin: withLog(twin, twin.log.map((e, j) => (j === i ? edited : e))) }, /differs between run and stream/)
    })
  })

  describe("loadsBack", () => {
    it("reports a final state that does not read back from JSON: a NaN (written as null), a cycle", async () => {
      const r = await record()
      expect(loadsBack(r)).toEqual([])
      const final = r.final as AgentState
      const nan = AgentState.withExecution(final, { ...final.execution, completedAt: Number.NaN })
      reports(loadsBack, { ...r, final: nan }, /does not read back: cannot decode execution.completedAt/)
      const payload: Record<string, unknown> = {}
      payload["self"] = payload
      const cyclic = AgentState.withExecution(final, { ...final.execution, metadata: payload as never })
      reports(loadsBack, { ...r, final: cyclic }, /does not encode/)
    })
  })

  describe("answersEveryCall", () => {
    it("reports a call left without a tool message, before a model request and at the end, and a tool that ran but left no record", async () => {
      const r = await record()
      expect(answersEveryCall(r)).toEqual([])
      const final = r.final as AgentState
      const messages = [...final.context.messages]
      const i = messages.findIndex((m) => m.role === "tool")
      const dropped = AgentState.make({ id: final.id, messages: messages.filter((_, j) => j !== i) })
      reports(answersEveryCall, { ...r, final: dropped }, /in the final state, call call_1 of message 1 has 0 tool messages/)
      const twice = AgentState.make({ id: final.id, messages: [...messages.slice(0, i + 1), messages[i] as Message, ...messages.slice(i + 1)] })
      reports(answersEveryCall, { ...r, final: twice }, /call call_1 of message 1 has 2 tool messages/)
      const at = indexOf(r, (e) => e._tag === "DispatchStart" && e.trigger === "BeforeInference" && e.ctx.state.context.messages.length > 2)
      const start = r.log[at] as Extract<Entry, { _tag: "DispatchStart" }>
      const unanswered = HookContext.withState(start.ctx, AgentState.make({ id: final.id, messages: messages.slice(0, 2) }))
      reports(answersEveryCall, withLog(r, r.log.map((e, j) => (j === at ? { ...start, ctx: unanswered } : e))), /a model request at log\[\d+\] followed a history where call call_1/)
      reports(answersEveryCall, withLog(r, [...r.log, { _tag: "ToolDone", callId: "call_9", tool: "add" }]), /tool add ran to its end for call_9 .* no step records it/)
    })
  })

  // Issue 16: wrap hooks around the model and the tools.
  describe("with wrap hooks", () => {
    const wrap = (name: string, point: WrapSpec["point"], behaviour: WrapSpec["behaviour"], extra: Partial<WrapSpec> = {}): WrapSpec => ({
      name,
      point,
      priority: 0,
      onError: "fail",
      lift: "effect",
      behaviour,
      ...extra,
    })
    // A failed model call and a text attempt that fails after streaming, each retried; a tool call retried after a failure.
    const retried: Partial<Scenario> = {
      // Not on AfterInference: the stream's text is then the model's, live.
      hooks: [hook("fuzz:observer", ["BeforeExecution", "BeforeStep", "BeforeInference", "BeforeToolUse", "AfterToolUse", "AfterStep", "OnStop", "OnError", "AfterExecution"], { _tag: "Pass" })],
      guardsAt: 1,
      interceptor: "stack",
      textDeltas: "live",
      // A garbage answer is not compared with its twin (the paths word their errors differently).
      twin: false,
      wraps: [
        wrap("w1:retry", "WrapInference", { _tag: "Retry", times: 2, backoffMs: 5 }),
        wrap("w2:retry", "WrapToolUse", { _tag: "Retry", times: 1, backoffMs: 0 }, { lift: "promise" }),
      ],
      script: [
        { _tag: "Failure" },
        { _tag: "ToolCalls", calls: [{ _tag: "Invalid", tool: "add" }], text: "", usage: { inputTokens: 1, outputTokens: 1 } },
        { _tag: "Garbage", kind: "otherText" },
        { _tag: "Text", text: "It is 4.", chunked: true, finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } },
      ],
    }

    it("hold for a run whose model calls and tools are retried (and its streamed twin)", async () => {
      const r = await record(retried)
      expect(violations(r)).toEqual([])
      const steps = (r.final as AgentState).execution.steps.toArray()
      expect(steps.map((s) => s.attempts?.map((a) => a.error === undefined))).toEqual([[false, true], [false, true]])
      expect(steps[0]?.toolAttempts?.length).toBe(2)
      const twinned = await record({ ...retried, script: retried.script?.filter((t) => t._tag !== "Garbage"), twin: true })
      expect(twinned.twin).toBeDefined()
      expect(violations(twinned)).toEqual([])
      const stream = await record({ ...retried, mode: "stream", twin: false })
      expect(violations(stream)).toEqual([])
      expect(stream.streamEvents?.map((e) => e._tag).filter((t) => t === "TextReset" || t === "TextDelta")).toEqual(["TextDelta", "TextReset", "TextDelta", "TextDelta", "TextDelta"])
    })

    it("oneEnd judges a step's last attempt: a retried failure is no error, the last one is", async () => {
      const r = await record(retried)
      expect(oneEnd(r)).toEqual([])
      // Without the retry that followed it, the first failed call ended its step: it must reach OnError.
      const second = indexOf(r, (e) => e._tag === "DriverCall" && e.index === 1)
      reports(oneEnd, withLog(r, r.log.filter((_, j) => j !== second)), /the error at log\[\d+\] was followed by \w+ at log\[\d+\], not OnError/)
    })

    it("recordsEveryAttempt reports a model call or a tool run its step does not record", async () => {
      const r = await record(retried)
      const final = r.final as AgentState
      const first = final.execution.steps.at(0) as Step.Step
      const withFirst = (step: Step.Step) =>
        AgentState.withExecution(final, { ...final.execution, steps: AppendLog.fromIterable([step, ...final.execution.steps.toArray().slice(1)]) })
      const fewer = withFirst(Step.make({ ...first, attempts: first.attempts?.slice(1), toolAttempts: first.toolAttempts?.slice(1) }))
      reports(recordsEveryAttempt, { ...r, final: fewer }, /4 model calls, the steps record 3 InferenceAttempts/)
      // The arguments were invalid: the tool never ran, each attempt ended before it. Two runs the step does not record:
      const ran: Entry = { _tag: "ToolDone", callId: "call_1", tool: "add" }
      reports(recordsEveryAttempt, withLog({ ...r, final: fewer }, [...r.log, ran, ran]), /call call_1 ran 2 time\(s\), its step records 1 ToolAttempt/)
      const swapped = withFirst(Step.make({ ...first, attempts: first.attempts?.slice().reverse() }))
      reports(recordsEveryAttempt, { ...r, final: swapped }, /model call #0 failed, its InferenceAttempt says it answered/)
    })

    it("recordsEveryAttempt judges a call a timeout cut as failed, and reports it missing or answered (issue 22)", async () => {
      const timed: Partial<Scenario> = {
        ...retried,
        wraps: [wrap("w1:retry", "WrapInference", { _tag: "Retry", times: 1, backoffMs: 0 }), wrap("w2:timeout", "WrapInference", { _tag: "Timeout", ms: 7 }, { priority: -1 })],
        script: [
          { _tag: "Delay", ms: 40, turn: { _tag: "Text", text: "late", chunked: false, finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } } },
          { _tag: "Text", text: "It is 4.", chunked: false, finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } },
        ],
      }
      const r = await record(timed)
      expect(violations(r)).toEqual([])
      const final = r.final as AgentState
      const step = final.execution.steps.at(0) as Step.Step
      expect(step.attempts?.map((a) => [a.error?.status, a.durationMs])).toEqual([[408, 7], [undefined, 0]])
      expect(r.log.filter((e) => e._tag === "DriverEnd").map((e) => e._tag === "DriverEnd" && e.outcome)).toEqual(["interrupted", "answered"])
      const only = (attempts: ReadonlyArray<Step.InferenceAttempt>) =>
        AgentState.withExecution(final, { ...final.execution, steps: AppendLog.fromIterable([Step.make({ ...step, attempts })]) })
      reports(recordsEveryAttempt, { ...r, final: only(step.attempts!.slice(1)) }, /2 model calls, the steps record 1 InferenceAttempts/)
      const answered = Step.inferenceAttempt({ ...step.attempts![0]!, error: undefined })
      reports(recordsEveryAttempt, { ...r, final: only([answered, step.attempts![1]!]) }, /model call #0 failed, its InferenceAttempt says it answered/)
    })

    it("recordsEveryAttempt checks the model calls of a suspended and resumed run (issue 22)", async () => {
      const suspending: Partial<Scenario> = {
        ...retried,
        hooks: [...(retried.hooks ?? []), hook("h1:suspend", ["BeforeToolUse"], { _tag: "Suspend", tools: ["add"] })],
        script: [
          { _tag: "Failure" },
          { _tag: "ToolCalls", calls: [{ _tag: "Valid", tool: "add" }], text: "", usage: { inputTokens: 1, outputTokens: 1 } },
          { _tag: "Text", text: "It is 4.", chunked: false, finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } },
        ],
        resume: { plans: [], encode: true, probe: "none" },
      }
      const r = await record(suspending)
      expect(violations(r)).toEqual([])
      const [first, second] = chainOf(r)
      expect([first?.final?.execution.status, second?.final?.execution.status]).toEqual(["suspended", "completed"])
      // The run call that suspended made two calls, kept in its open step.
      const open = first?.final?.execution.suspendedStep as Step.Step
      expect(open.attempts?.map((a) => a.error === undefined)).toEqual([false, true])
      const withOpen = (attempts: ReadonlyArray<Step.InferenceAttempt>) =>
        AgentState.withSuspendedStep(first!.final!, Step.make({ ...open, attempts }))
      reports(recordsEveryAttempt, { ...first!, final: withOpen(open.attempts!.slice(1)) }, /2 model calls, the steps record 1 InferenceAttempts/)
      // The resumed call's own model call is in its next step; the resumed step's two are not its own.
      const final = second!.final as AgentState
      const last = final.execution.steps.at(-1) as Step.Step
      const dropped = AgentState.withExecution(final, {
        ...final.execution,
        steps: AppendLog.fromIterable([...final.execution.steps.toArray().slice(0, -1), Step.make({ ...last, attempts: [] })]),
      })
      reports(recordsEveryAttempt, { ...second!, final: dropped }, /1 model calls, the steps record 0 InferenceAttempts/)
    })

    it("resetsRetriedText reports a failed attempt's text left in the stream", async () => {
      const r = await record({ ...retried, mode: "stream", twin: false })
      const events = r.streamEvents ?? []
      reports(resetsRetriedText, { ...r, streamEvents: events.filter((e) => e._tag !== "TextReset") }, /step 1 streamed text "otherIt is 4\." after its last reset/)
      // The reasoning streams and resets with the text (issue 25).
      const reasoned = events.map((e) => (e._tag === "TextDelta" && e.step === 1 ? { _tag: "ReasoningDelta" as const, step: 1, text: "hm" } : e))
      reports(resetsRetriedText, { ...r, streamEvents: reasoned }, /step 1 streamed reasoning "(hm)+" after its last reset, its answer.s is ""/)
    })

    it("blockedNeverRuns allows a second run of a call only under WrapToolUse hooks", async () => {
      const r = await record({ ...retried, wraps: [], script: retried.script?.slice(1, 2).concat(retried.script.slice(3)) })
      const run = r.log.find((e) => e._tag === "ToolRun")
      expect(run).toBeUndefined()
      const plain = await record()
      const first = plain.log.find((e) => e._tag === "ToolRun") as Entry
      reports(blockedNeverRuns, withLog(plain, [...plain.log, first]), /call call_1 executed 2 times/)
    })
  })

  // Issue 13: a run suspended on its tool calls and resumed.
  describe("resumesCleanly", () => {
    const suspended: Partial<Scenario> = {
      hooks: [hook("fuzz:observer", "all", { _tag: "Pass" }), hook("h1:suspend", ["BeforeToolUse"], { _tag: "Suspend", tools: ["add", "echo"] })],
      guardsAt: 2,
      script: [
        { _tag: "ToolCalls", calls: [{ _tag: "Valid", tool: "add" }, { _tag: "Valid", tool: "echo" }], text: "", usage: { inputTokens: 1, outputTokens: 1 } },
        { _tag: "Text", text: "done", chunked: false, finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } },
      ],
      resume: { plans: [["leave", "reject"], ["edit"]], encode: true, probe: "decided" },
    }

    it("holds for a run resumed twice (a partial resume, then the rest), and its streamed twin", async () => {
      const r = await record(suspended)
      expect(violations(r)).toEqual([])
      const chain = chainOf(r)
      expect(chain.map((c) => c.final?.execution.status)).toEqual(["suspended", "suspended", "completed"])
      expect(chain[2]?.log.filter((e) => e._tag === "ToolRun").map((e) => e._tag === "ToolRun" && e.args)).toEqual([{ a: 10, b: 20 }])
      // The second resume's probe repeats the first resume's last decision: a no-op (issue 26).
      expect(r.resumed?.recording.resumed?.probe).toMatchObject({ kind: "repeat", got: "accepted", ran: [], written: false })
      expect(r.twinCalls).toBe(3)
    })

    it("reports a repeat that was refused or that ran something", async () => {
      const r = await record(suspended)
      const first = r.resumed as Resumption
      const second = first.recording.resumed as Resumption
      const withProbe = (probe: NonNullable<Resumption["probe"]>) => ({ ...r, resumed: { ...first, recording: { ...first.recording, resumed: { ...second, probe } } } })
      const repeat = second.probe as NonNullable<Resumption["probe"]>
      reports(resumesCleanly, withProbe({ ...repeat, got: "DecisionInvalid:decided" }), /gave DecisionInvalid:decided, not accepted/)
      reports(resumesCleanly, withProbe({ ...repeat, ran: ["tool add for call_1"] }), /was a no-op, but ran tool add for call_1/)
    })

    it("reports a probe that was accepted, a rejection the model never read, and a call that ran twice", async () => {
      const r = await record(suspended)
      const first = r.resumed as Resumption
      const accepted = { ...r, resumed: { ...first, probe: { kind: "unknown" as const, decisions: [], got: "accepted", ran: [], written: false } } }
      reports(resumesCleanly, accepted, /gave accepted, not DecisionInvalid:unknown/)
      // Issue 22: a forged decision refused after something ran, or after the state changed.
      const forged = { kind: "malformed" as const, decisions: [{ _tag: "Deny", toolCallId: "call_1" }], got: "DecisionInvalid:malformed" }
      reports(resumesCleanly, { ...r, resumed: { ...first, probe: { ...forged, ran: ["tool add for call_1"], written: false } } }, /was refused, but ran tool add for call_1/)
      reports(resumesCleanly, { ...r, resumed: { ...first, probe: { ...forged, ran: [], written: true } } }, /was refused, but changed the state it was given/)
      const rejection = { ...r, resumed: { ...first, decisions: [Decision.reject("call_2", "never said")] } }
      reports(resumesCleanly, rejection, /call call_2 was rejected, the model reads/)
      const last = chainOf(r)[2] as Recording
      const ran = last.log.find((e) => e._tag === "ToolRun") as Entry
      const twice = { ...r, resumed: { ...first, recording: { ...first.recording, resumed: { ...(first.recording.resumed as Resumption), recording: withLog(last, [...last.log, ran]) } } } }
      reports(resumesCleanly, twice, /call call_1 ran again in run call #2/)
    })

    it("reports a resume that did not start from the suspended state, and a twin that resumed otherwise", async () => {
      const r = await record(suspended)
      const first = r.resumed as Resumption
      const other = { ...first, recording: { ...first.recording, input: AgentState.withMetadata(first.recording.input, { tampered: true }) } }
      reports(resumesCleanly, { ...r, resumed: other }, /run call #1 did not start from the state run call #0 ended with/)
      reports(resumesCleanly, { ...r, twinCalls: 2 }, /made 3 run call\(s\), its streamed twin 2/)
    })
  })
})
