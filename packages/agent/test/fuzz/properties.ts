// The properties every recorded run (run.ts) must have. Each checker is a pure
// function from a recording to the list of its violations (empty: it holds), so a
// test can feed it a fabricated recording and see it fail.
import { AgentState, AppendLog, Codecs, HookContext, Json, StopSignal, ToolExecution, WrapHook, type HookExecuted, type Message, type Step } from "@hookline/core"
import { Tools } from "@hookline/agent"
import { chainOf, synchronousTools, type Entry, type Recording } from "./run.js"
import type { Trigger, TurnSpec } from "./scenario.js"

// -- dispatches -----------------------------------------------------------------------

/** One trigger's hooks running once, as the log shows it. */
export interface Dispatch {
  readonly trigger: Trigger
  /** Index in the log of its first and last entries. */
  readonly start: number
  readonly end: number
  /** The context it started from: exact with the marking interceptor, else what its first generated hook saw. */
  readonly input: HookContext | undefined
  /** What it returned (marking interceptor, success only). */
  readonly output: HookContext | undefined
  /** The hooks that reported an event, in order, with their outcomes. */
  readonly names: ReadonlyArray<string>
  readonly outcomes: ReadonlyArray<HookExecuted.Outcome>
  /** Every context a generated hook got, in order. */
  readonly seen: ReadonlyArray<HookContext>
  /** Marking interceptor only: how it ended (undefined: it never ended). */
  readonly ended: "success" | "failure" | "interrupted" | undefined
}

interface MutableDispatch {
  trigger: Trigger
  start: number
  end: number
  input: HookContext | undefined
  output: HookContext | undefined
  names: Array<string>
  outcomes: Array<HookExecuted.Outcome>
  seen: Array<HookContext>
  ended: "success" | "failure" | "interrupted" | undefined
  // grouping state (unmarked logs)
  pos: number
  entered: boolean
}

const hookOf = (e: Entry): { readonly trigger: Trigger; readonly hook: string } | undefined => {
  switch (e._tag) {
    case "Enter":
    case "Exit":
    case "Raise":
    case "Interrupted":
      return e
    case "Event":
      // Wrap hooks hold a call; they are not part of a trigger's dispatch.
      return WrapHook.isWrapPoint(e.event.trigger) ? undefined : { trigger: e.event.trigger, hook: e.event.hook }
    default:
      return undefined
  }
}

const fresh = (trigger: Trigger, start: number): MutableDispatch => ({
  trigger,
  start,
  end: start,
  input: undefined,
  output: undefined,
  names: [],
  outcomes: [],
  seen: [],
  ended: undefined,
  pos: -1,
  entered: false,
})

const absorb = (d: MutableDispatch, e: Entry, i: number): void => {
  d.end = i
  if (e._tag === "Enter") {
    d.seen.push(e.ctx)
    if (d.input === undefined) d.input = e.ctx
  } else if (e._tag === "Event") {
    d.names.push(e.event.hook)
    d.outcomes.push(e.event.outcome)
  }
}

/**
 * The log's dispatches. With the marking interceptor they are exact. Without it, a new
 * dispatch begins when the trigger changes or a hook comes that cannot continue the
 * current one (each dispatch runs its trigger's list once, in `explain` order).
 */
export const dispatchesOf = (r: Recording): ReadonlyArray<Dispatch> => {
  const out: Array<MutableDispatch> = []
  if (r.marked) {
    let current: MutableDispatch | undefined
    r.log.forEach((e, i) => {
      if (e._tag === "DispatchStart") {
        current = fresh(e.trigger, i)
        current.input = e.ctx
        out.push(current)
      } else if (e._tag === "DispatchEnd") {
        if (current !== undefined) {
          current.end = i
          current.ended = e.outcome
          current.output = e.ctx
        }
        current = undefined
      } else if (current !== undefined && hookOf(e) !== undefined) {
        const input = current.input
        absorb(current, e, i)
        current.input = input
      }
    })
    return out
  }
  let current: MutableDispatch | undefined
  r.log.forEach((e, i) => {
    const h = hookOf(e)
    if (h === undefined) return
    const p = r.explain[h.trigger]?.indexOf(h.hook) ?? -1
    const continues = current !== undefined && current.trigger === h.trigger && p >= 0 && (
      e._tag === "Enter"
        ? p > current.pos
        : e._tag === "Event"
        ? p > current.pos || (p === current.pos && current.entered)
        : p === current.pos && current.entered
    )
    if (!continues) {
      current = fresh(h.trigger, i)
      out.push(current)
    }
    const d = current as MutableDispatch
    d.pos = p
    d.entered = e._tag !== "Event"
    absorb(d, e, i)
  })
  return out
}

// -- helpers ------------------------------------------------------------------------------

const firstIndex = (r: Recording, tag: Entry["_tag"]): number => r.log.findIndex((e) => e._tag === tag)

/** The AfterExecution dispatch (the first, if there are several). */
const afterExecution = (ds: ReadonlyArray<Dispatch>) => ds.find((d) => d.trigger === "AfterExecution")

/**
 * Whether the run was aborted before it began to finish (before AfterExecution): by its
 * signal (the loop checks it even when it did not yield), or by interrupting its fiber
 * (or leaving the stream) while it waited. An interruption requested while the fiber
 * runs lands at its next await: a run that finishes its work first simply finishes
 * (Effect has no public way to see a pending interruption), so that case expects nothing.
 */
const abortedBeforeFinish = (r: Recording, ds: ReadonlyArray<Dispatch>): boolean => {
  const abort = r.log.findIndex((e) => e._tag === "Abort" && (e.via === "signal" || (r.final === undefined && e.timing === "soon")))
  if (abort < 0) return false
  const ae = afterExecution(ds)
  return ae === undefined || abort < ae.start
}

/** The final state: what the run returned, else (interrupted) what AfterExecution started from. */
export const finalState = (r: Recording, ds = dispatchesOf(r)): AgentState | undefined => r.final ?? afterExecution(ds)?.input?.state

const isTerminal = (status: AgentState.ExecutionStatus) => status === "completed" || status === "stopped" || status === "failed"

/** How a run call may end: terminal, or suspended on calls waiting for a decision (issue 13). */
const isEnd = (state: AgentState) =>
  isTerminal(state.execution.status) || (state.execution.status === "suspended" && (state.execution.pendingCalls?.length ?? 0) > 0)

/** Whether `index` is the step a resumed call ended (its model call ran in the call that suspended). */
const resumedStep = (r: Recording, index: number): boolean =>
  r.input.execution.status === "suspended" && index === r.input.execution.steps.length

/** Whether the run call ended suspended (its open step is recorded only once decided). */
const endedSuspended = (r: Recording): boolean => finalState(r)?.execution.status === "suspended"

const messagesOf = (state: AgentState): ReadonlyArray<Message> => state.context.messages.toArray()

const sameMessage = (a: Message | undefined, b: Message | undefined): boolean => a === b || JSON.stringify(a) === JSON.stringify(b)

/** Whether `prefix` is a prefix of `list`; else where they first differ. */
const prefixDifference = (prefix: ReadonlyArray<Message>, list: ReadonlyArray<Message>): string | undefined => {
  if (prefix.length > list.length) return `it has ${prefix.length} messages, the later list only ${list.length}`
  for (let i = 0; i < prefix.length; i++) {
    if (!sameMessage(prefix[i], list[i])) return `message ${i} differs: ${JSON.stringify(prefix[i])} vs ${JSON.stringify(list[i])}`
  }
  return undefined
}

const at = (r: Recording, i: number) => `log[${i}]`

// What a hook returned, read only if it has the parts the checkers read (a hand-built
// context may not: the dispatcher refuses those).
const isContext = (u: unknown): u is HookContext =>
  HookContext.isHookContext(u) && typeof u.state === "object" && u.state !== null &&
  typeof u.state.metadata === "object" && typeof u.state.execution === "object" && u.state.execution !== null

const turnFails = (turn: TurnSpec | undefined): boolean =>
  turn === undefined || turn._tag === "Failure" || (turn._tag === "Garbage" && turn.kind !== "afterFinish") ||
  (turn._tag === "Delay" && turnFails(turn.turn))

/**
 * How each model call of this run call ended, by its index (the driver's log). A call
 * that ended only after the run did (a Promise wrap hook's `next` outlives its run), or
 * never, was cut short as far as the run is concerned.
 */
const callEnds = (r: Recording): ReadonlyMap<number, "answered" | "failed" | "interrupted"> => {
  const runEnd = r.log.findIndex((e) =>
    (e._tag === "Enter" || e._tag === "DispatchStart" || e._tag === "Event") && (e._tag === "Event" ? e.event.trigger : e.trigger) === "AfterExecution"
  )
  return new Map(r.log.flatMap((e, i) => (e._tag === "DriverEnd" ? [[e.index, runEnd >= 0 && i > runEnd ? "interrupted" : e.outcome] as const] : [])))
}

/** Whether the model call failed: its turn fails, or a timeout or an abort cut it (issue 22). */
const callFails = (call: { readonly index: number; readonly turn: TurnSpec | undefined }, ends: ReadonlyMap<number, string>): boolean =>
  turnFails(call.turn) || (ends.get(call.index) ?? "interrupted") === "interrupted"

/** Whether the scenario has wrap hooks at that point. */
const hasWraps = (r: Recording, point: WrapHook.WrapPoint): boolean =>
  ((r.explain as Readonly<Record<string, ReadonlyArray<string> | undefined>>)[point]?.length ?? 0) > 0

/** The steps this run call recorded (a finished input starts a new execution; a suspended one goes on). */
const newSteps = (r: Recording, final: AgentState) =>
  final.execution.steps.toArray().slice(isTerminal(r.input.execution.status) ? 0 : r.input.execution.steps.length)

/** Whether the model call at `i` is its step's last attempt: no other model call before the next dispatch. */
const lastAttempt = (r: Recording, i: number): boolean => {
  for (let j = i + 1; j < r.log.length; j++) {
    const e = r.log[j] as Entry
    if (e._tag === "DriverCall") return false
    if (hookOf(e) !== undefined) return true
  }
  return true
}

// -- the properties --------------------------------------------------------------------------

export type Checker = (r: Recording) => ReadonlyArray<string>

const reportedOnly: ReadonlySet<string> = new Set(["OnStop", "OnError", "AfterExecution"])

/** The run terminates, its Effect never fails, and no more steps than `maxSteps` are recorded. */
export const terminates: Checker = (r) => {
  const v: Array<string> = []
  if (r.exit === "runaway") v.push(`the run did not end on its own: more than ${r.log.length} log entries (a loop that never stops)`)
  if (r.exit === "timeout") v.push("the run did not end within the deadline")
  if (r.exit === "defect") v.push(`the run's Effect died (it must never fail): ${r.defect ?? ""}`)
  if (r.exit === "interrupted" && !r.log.some((e) => e._tag === "Abort" && e.via === "interrupt")) {
    v.push("the run's Effect was interrupted though nobody interrupted it")
  }
  const final = finalState(r)
  if (final === undefined) v.push("no final state: neither a result nor an AfterExecution dispatch")
  else {
    const steps = final.execution.steps.length
    if (steps > r.maxSteps) v.push(`${steps} steps recorded, more than maxSteps ${r.maxSteps}`)
    if (!isEnd(final)) v.push(`the final status is ${final.execution.status}, not a terminal one (nor suspended on pending calls)`)
  }
  return v
}

/**
 * Exactly one end: one AfterExecution dispatch, seeing a terminal status that agrees
 * with the stop signals and the abort; every context before it saw a running run.
 * OnError fires only on errors, and every error that ends a step reaches OnError.
 */
export const oneEnd: Checker = (r) => {
  const v: Array<string> = []
  const ds = dispatchesOf(r)
  const ends = ds.filter((d) => d.trigger === "AfterExecution")
  if (ends.length !== 1) v.push(`AfterExecution ran ${ends.length} times (at ${ends.map((d) => at(r, d.start)).join(", ")}), not exactly once`)
  const ae = ends[0]
  const final = finalState(r, ds)
  if (ae !== undefined) {
    const state = ae.input?.state
    const status = state?.execution.status
    if (state === undefined || status === undefined) v.push("AfterExecution saw no state")
    else {
      if (!isEnd(state)) v.push(`AfterExecution saw status ${status}, not a terminal one (nor suspended on pending calls)`)
      if (final !== undefined && final.execution.status !== status) {
        v.push(`AfterExecution saw status ${status} but the run ended ${final.execution.status}`)
      }
      const signals = state.execution.stopSignals
      const highest = StopSignal.highest(signals)
      const loopError = signals.some((s) => s.reason === "ErrorForbade" && s.source === "loop")
      const userRequested = signals.some((s) => s.reason === "UserRequested" && s.source === "loop")
      // failed: an error ended it; stopped: aborted, or a hard signal holds (any, docs/loop.md); else completed.
      if ((status === "failed") !== loopError) v.push(`status ${status} but the loop's ErrorForbade signal is ${loopError ? "present" : "absent"}`)
      else if (status !== "failed") {
        const hard = signals.filter((s) => StopSignal.isHard(s))
        if ((userRequested || hard.length > 0) !== (status === "stopped")) {
          v.push(`status ${status} with the stop signals [${signals.map((s) => `${s.reason} from ${s.source}`).join(", ")}] (highest ${highest?.reason ?? "none"})`)
        }
      }
      if (abortedBeforeFinish(r, ds)) {
        if (status !== "stopped" || !userRequested) {
          v.push(`aborted at ${at(r, firstIndex(r, "Abort"))} before the run finished, but it ended ${status} (UserRequested ${userRequested ? "present" : "absent"})`)
        }
      } else if (userRequested && !r.log.some((e, i) => e._tag === "Abort" && i < ae.start)) {
        v.push("a UserRequested stop signal from the loop, but the run was not aborted")
      }
    }
    for (const d of ds) {
      if (d.start >= ae.start) break
      for (const ctx of d.seen) {
        if (ctx.state.execution.status !== "running") {
          v.push(`a ${d.trigger} hook at ${at(r, d.start)} saw status ${ctx.state.execution.status} before AfterExecution`)
          break
        }
      }
    }
    if (ds.some((d) => d.start > ae.end && d.trigger !== "AfterExecution")) v.push("a dispatch after AfterExecution")
  }
  // Without an OnError hook the loop skips that dispatch altogether.
  const hasOnError = (r.explain.OnError?.length ?? 0) > 0
  if (hasOnError && final?.execution.status === "failed" && !ds.some((d) => d.trigger === "OnError")) v.push("the run failed without an OnError dispatch")

  // OnError only on errors, and every error that ends a step reaches it.
  const causes: Array<number> = []
  const callEnded = callEnds(r)
  r.log.forEach((e, i) => {
    // A failure in OnStop, OnError or AfterExecution is reported, never sent to OnError (docs/loop.md).
    if (e._tag === "Event" && e.event.outcome === "failed" && !reportedOnly.has(e.event.trigger)) causes.push(i)
    // A failed model call is an error of the step only when it was the step's last attempt (issue 16: a wrap hook may retry it).
    if (e._tag === "DriverCall" && callFails(e, callEnded) && lastAttempt(r, i)) causes.push(i)
  })
  const abort = firstIndex(r, "Abort")
  let previous = -1
  for (const d of ds.filter((d) => d.trigger === "OnError")) {
    const errors = d.input?.errors
    if (errors === undefined || errors.length === 0) v.push(`OnError at ${at(r, d.start)} without errors`)
    else {
      const other = errors.filter((e) => e._tag !== "HookFailed" && e._tag !== "InferenceFailed")
      if (other.length > 0) v.push(`OnError at ${at(r, d.start)} got errors that end no step: ${other.map((e) => e._tag).join(", ")}`)
    }
    const cause = causes.filter((c) => c > previous && c < d.start).at(-1)
    if (cause === undefined) v.push(`OnError at ${at(r, d.start)} with no failed hook or model call before it`)
    else {
      const e = r.log[cause] as Entry
      const first = errors?.[0]
      if (e._tag === "Event" && (first?._tag !== "HookFailed" || first.hook !== e.event.hook || first.trigger !== e.event.trigger)) {
        v.push(`OnError at ${at(r, d.start)} got ${first === undefined ? "no error" : first._tag} first, not the HookFailed of ${e.event.hook} on ${e.event.trigger}`)
      }
      if (e._tag === "DriverCall" && first?._tag !== "InferenceFailed") {
        v.push(`OnError at ${at(r, d.start)} got ${first?._tag ?? "no error"} first, not the InferenceFailed of the model call at ${at(r, cause)}`)
      }
    }
    previous = d.start
  }
  for (const c of hasOnError ? causes : []) {
    const next = ds.find((d) => d.start > c)
    if ((abort < 0 || abort > (next?.start ?? Infinity)) && next?.trigger !== "OnError") {
      v.push(`the error at ${at(r, c)} was followed by ${next === undefined ? "nothing" : `${next.trigger} at ${at(r, next.start)}`}, not OnError`)
    }
  }
  // A failure in OnStop, OnError or AfterExecution is recorded as a HookFailed (and streamed as one).
  if (r.final !== undefined) {
    const failed = new Map<string, number>()
    for (const e of r.log) {
      if (e._tag === "Event" && e.event.outcome === "failed" && reportedOnly.has(e.event.trigger)) {
        const key = `${e.event.hook} on ${e.event.trigger}`
        failed.set(key, (failed.get(key) ?? 0) + 1)
      }
    }
    for (const [key, n] of failed) {
      const recorded = r.final.execution.errors.filter((e) => e._tag === "HookFailed" && `${e.hook} on ${e.trigger}` === key).length
      if (recorded < n) v.push(`${key} failed ${n} time(s), the final state records ${recorded} HookFailed for it`)
      if (r.streamEvents !== undefined) {
        const streamed = r.streamEvents.filter((e) => e._tag === "HookFailed" && `${e.error.hook} on ${e.error.trigger}` === key).length
        if (streamed < n) v.push(`${key} failed ${n} time(s), the stream reported ${streamed} HookFailed event(s)`)
      }
    }
  }
  if (r.marked) {
    // An OnError dispatch that left errors unhandled ends the run failed (unless an abort came first).
    for (const d of ds.filter((d) => d.trigger === "OnError")) {
      const unhandled = d.ended === "failure" || (d.ended === "success" && (d.output?.errors.length ?? 0) > 0)
      if (unhandled && (abort < 0 || abort > d.end) && final !== undefined && final.execution.status !== "failed") {
        v.push(`OnError at ${at(r, d.start)} left the errors unhandled, but the run ended ${final.execution.status}`)
      }
    }
  }
  if (r.streamEvents !== undefined) {
    const tags = r.streamEvents.map((e) => e._tag)
    if (tags[0] !== undefined && tags[0] !== "RunStarted") v.push(`the stream began with ${tags[0]}, not RunStarted`)
    if (tags.filter((t) => t === "RunStarted").length > 1) v.push("the stream has more than one RunStarted")
    const ended = tags.filter((t) => t === "RunEnded").length
    if (ended > 1) v.push("the stream has more than one RunEnded")
    if (ended === 1 && tags.at(-1) !== "RunEnded") v.push("RunEnded is not the stream's last event")
    const left = r.log.some((e) => e._tag === "Abort" && e.via !== "signal")
    if (ended === 0 && !left) v.push("the stream ended without RunEnded although nobody left it")
  }
  return v
}

/** Every message committed before an error or an abort is in the final state, in order. */
export const keepsMessages: Checker = (r) => {
  const v: Array<string> = []
  const ds = dispatchesOf(r)
  const final = finalState(r, ds)
  if (final === undefined) return ["no final state to compare messages with"]
  const finalMessages = messagesOf(final)
  // Committed: what each dispatch started from, and (when it ran to its end) everything its hooks saw and returned.
  const committed: Array<{ readonly where: string; readonly state: AgentState }> = []
  ds.forEach((d, n) => {
    const complete = r.marked
      ? d.ended === "success"
      : !d.outcomes.includes("failed") && d.names.length === (r.explain[d.trigger]?.length ?? 0)
    if (d.input !== undefined) committed.push({ where: `the input of ${d.trigger} dispatch #${n} at ${at(r, d.start)}`, state: d.input.state })
    // Without a result (an interrupted run), the final state is what AfterExecution started from.
    if (complete && (d.trigger !== "AfterExecution" || r.final !== undefined)) {
      d.seen.forEach((ctx) => committed.push({ where: `a context a ${d.trigger} hook saw (dispatch #${n})`, state: ctx.state }))
      if (d.output !== undefined) committed.push({ where: `the output of ${d.trigger} dispatch #${n}`, state: d.output.state })
    }
  })
  let previous: { readonly where: string; readonly messages: ReadonlyArray<Message> } | undefined
  for (const c of committed) {
    const messages = messagesOf(c.state)
    const lost = prefixDifference(messages, finalMessages)
    if (lost !== undefined) {
      v.push(`${c.where} held messages the final state lost: ${lost}`)
      break
    }
    if (previous !== undefined && previous.messages.length > messages.length) {
      v.push(`the history shrank from ${previous.messages.length} messages (${previous.where}) to ${messages.length} (${c.where})`)
      break
    }
    previous = { where: c.where, messages }
  }
  // The states a stream reports at each step's end hold committed history too.
  for (const [i, e] of (r.streamEvents ?? []).entries()) {
    if (e._tag !== "StepEnded") continue
    const lost = prefixDifference(messagesOf(e.state), finalMessages)
    if (lost !== undefined) {
      v.push(`StepEnded event #${i} held messages the final state lost: ${lost}`)
      break
    }
  }
  // Tool results follow their calls, in call order (a suspended call's result comes when decided, after the others': issue 13).
  for (let i = 0; i < (r.suspends ? 0 : finalMessages.length); i++) {
    const m = finalMessages[i] as Message
    if (m.role !== "assistant" || m.toolCalls.length === 0) continue
    for (let j = 0; j < m.toolCalls.length; j++) {
      const next = finalMessages[i + 1 + j]
      if (next === undefined || next.role !== "tool") break
      if (next.toolCallId !== m.toolCalls[j]?.id) {
        v.push(`message ${i + 1 + j} is the result of ${next.toolCallId}, expected ${m.toolCalls[j]?.id} (call ${j} of message ${i})`)
        break
      }
    }
  }
  return v
}

/** Every state and context any hook (or tool) saw is deeply frozen, and so is the final state. */
export const frozen: Checker = (r) => {
  const v: Array<string> = []
  r.log.forEach((e, i) => {
    if (e._tag === "Enter" && e.unfrozen !== undefined) v.push(`${e.hook} on ${e.trigger} (${at(r, i)}) got a context not frozen at ${e.unfrozen}`)
    if (e._tag === "DispatchEnd" && e.unfrozen !== undefined) v.push(`the ${e.trigger} dispatch returned a context not frozen at ${e.unfrozen} (${at(r, i)})`)
    if (e._tag === "ToolRun" && e.unfrozen !== undefined) v.push(`tool ${e.tool} got a state not frozen at ${e.unfrozen} (${at(r, i)})`)
    if (e._tag === "DriverCall" && e.unfrozen !== undefined) v.push(`the model got a request not frozen at ${e.unfrozen} (${at(r, i)})`)
  })
  if (r.finalUnfrozen !== undefined) v.push(`the final state is not frozen at ${r.finalUnfrozen}`)
  return v.slice(0, 5)
}

/** A blocked or short-circuited call never executes, no call executes twice, and a block reaches the model as an error. */
export const blockedNeverRuns: Checker = (r) => {
  const v: Array<string> = []
  const ds = dispatchesOf(r)
  const blocked = new Map<string, string>()
  const skipped = new Map<string, string>()
  for (const e of r.log) {
    if (e._tag === "Exit" && e.trigger === "BeforeToolUse" && isContext(e.output) && e.output.trigger === "BeforeToolUse") {
      const id = e.input.toolCall?.id
      if (id !== undefined && e.output.toolExecutionBlocked) blocked.set(id, `${e.hook} blocked it`)
    }
  }
  for (const d of ds) {
    if (d.trigger === "BeforeToolUse" && d.ended === "success" && d.output?.toolCall !== undefined && d.output.toolExecution !== undefined) {
      const id = d.output.toolCall.id
      if (d.output.toolExecutionBlocked) blocked.set(id, "its BeforeToolUse dispatch returned it blocked")
      else skipped.set(id, "its BeforeToolUse dispatch returned a result")
    }
    if (d.trigger === "AfterToolUse" && d.input?.toolCall !== undefined) {
      const execution = d.input.toolExecution
      if (execution?.status === "blocked") blocked.set(d.input.toolCall.id, "AfterToolUse got it blocked")
      if (execution?.status === "success" && typeof execution.output === "string" && execution.output.startsWith("synthetic by")) {
        skipped.set(d.input.toolCall.id, "AfterToolUse got a synthetic result")
      }
    }
  }
  const runs = new Map<string, number>()
  r.log.forEach((e, i) => {
    if (e._tag !== "ToolRun") return
    runs.set(e.callId, (runs.get(e.callId) ?? 0) + 1)
    const why = blocked.get(e.callId)
    if (why !== undefined) v.push(`tool ${e.tool} ran for the blocked call ${e.callId} (${why}) at ${at(r, i)}`)
    const short = skipped.get(e.callId)
    if (short !== undefined) v.push(`tool ${e.tool} ran for the short-circuited call ${e.callId} (${short}) at ${at(r, i)}`)
  })
  // A wrap hook may retry a tool (recordsEveryAttempt checks each run is an attempt); nothing else runs it twice.
  if (!hasWraps(r, "WrapToolUse")) for (const [id, n] of runs) if (n > 1) v.push(`call ${id} executed ${n} times`)
  // A block is final: every later hook of the dispatch sees it, and the dispatch returns it.
  for (const d of ds) {
    if (d.trigger !== "BeforeToolUse" && d.trigger !== "AfterToolUse") continue
    let blockedAt: string | undefined = d.input?.toolExecutionBlocked === true ? "its input" : undefined
    for (let i = d.start; i <= d.end; i++) {
      const e = r.log[i] as Entry
      if (e._tag === "Enter" && blockedAt !== undefined && !e.ctx.toolExecutionBlocked) {
        v.push(`${e.hook} on ${d.trigger} saw the call unblocked after ${blockedAt} blocked it (${at(r, i)})`)
        break
      }
      if (e._tag === "Enter" && e.ctx.toolExecutionBlocked && blockedAt === undefined) blockedAt = `a hook before ${e.hook}`
      if (e._tag === "Exit" && isContext(e.output) && e.output.trigger === d.trigger && e.output.toolExecutionBlocked && blockedAt === undefined) {
        blockedAt = e.hook
      }
    }
    if (blockedAt !== undefined && d.ended === "success" && d.output?.toolExecutionBlocked !== true) {
      v.push(`the ${d.trigger} dispatch at ${at(r, d.start)} returned the call unblocked after ${blockedAt} blocked it`)
    }
  }
  const final = finalState(r, ds)
  if (final !== undefined && r.marked) {
    // What AfterToolUse returned is what the model reads.
    const results = new Map(messagesOf(final).flatMap((m) => (m.role === "tool" ? [[m.toolCallId, m] as const] : [])))
    for (const d of ds) {
      if (d.trigger !== "AfterToolUse" || d.ended !== "success" || d.output?.toolCall === undefined) continue
      const execution = d.output.toolExecution ?? d.input?.toolExecution
      const m = results.get(d.output.toolCall.id)
      if (execution === undefined || m === undefined) continue
      const expected = ToolExecution.toMessage(execution)
      if (m.content !== expected.content || m.isError !== expected.isError) {
        v.push(`the result of ${m.toolCallId} reached the model as ${JSON.stringify(m.content)}, AfterToolUse returned ${JSON.stringify(expected.content)}`)
      }
    }
  }
  if (final !== undefined) {
    for (const m of messagesOf(final)) {
      // A block the run never committed (its dispatch was cut short) leaves a cancellation marker (issue 12, item 6).
      if (m.role === "tool" && blocked.has(m.toolCallId) && (!m.isError || !(m.content.startsWith("Blocked: ") || Tools.isCancelled(m)))) {
        v.push(`the result of the blocked call ${m.toolCallId} reached the model as ${JSON.stringify(m.content)} (isError ${m.isError})`)
      }
    }
  }
  return v
}

/** A permission hook that was interrupted never allows its call. */
export const interruptedPermissionDenies: Checker = (r) => {
  const v: Array<string> = []
  const interrupted = new Set(r.log.flatMap((e) => (e._tag === "Permission" && e.phase === "interrupted" ? [e.callId] : [])))
  if (interrupted.size === 0) return v
  r.log.forEach((e, i) => {
    if (e._tag === "ToolRun" && interrupted.has(e.callId)) v.push(`tool ${e.tool} ran for call ${e.callId} whose permission hook was interrupted (${at(r, i)})`)
  })
  for (const d of dispatchesOf(r)) {
    const call = d.input?.toolCall
    if (d.trigger === "AfterToolUse" && call !== undefined && interrupted.has(call.id) && d.input?.toolExecution?.status !== "blocked") {
      v.push(`call ${call.id} went on to AfterToolUse with a ${d.input?.toolExecution?.status} execution after its permission hook was interrupted`)
    }
  }
  const final = finalState(r)
  if (final !== undefined) {
    for (const m of messagesOf(final)) {
      if (m.role === "tool" && interrupted.has(m.toolCallId) && !m.isError) {
        v.push(`call ${m.toolCallId} has a successful result although its permission hook was interrupted`)
      }
    }
  }
  return v
}

/**
 * Hooks fire in the order `explain` reports (which is priority, then registration):
 * each dispatch runs a prefix of its trigger's list, all of it unless a hook failed
 * the dispatch or an abort cut it short. A hook skipped on error passes its input on.
 */
export const firesInExplainedOrder: Checker = (r) => {
  const v: Array<string> = []
  const triggers = new Set([...Object.keys(r.explain), ...Object.keys(r.expectedOrder)]) as Set<Trigger>
  for (const trigger of triggers) {
    const got = r.explain[trigger] ?? []
    const want = r.expectedOrder[trigger] ?? []
    if (got.join(",") !== want.join(",")) v.push(`explain lists ${trigger} as [${got.join(", ")}], the registrations imply [${want.join(", ")}]`)
  }
  const ds = dispatchesOf(r)
  const abort = firstIndex(r, "Abort")
  const ae = afterExecution(ds)
  ds.forEach((d, n) => {
    const list = r.explain[d.trigger] ?? []
    const where = `${d.trigger} dispatch #${n} at ${at(r, d.start)}`
    const prefix = list.slice(0, d.names.length)
    if (d.names.join(",") !== prefix.join(",")) {
      v.push(`${where} ran [${d.names.join(", ")}], explain says [${list.join(", ")}]`)
      return
    }
    const failedAt = d.outcomes.indexOf("failed")
    // AfterExecution is the run's `finally`: every hook runs despite a failure
    // (docs/ordering.md); any other dispatch ends at its first failure.
    if (d.trigger === "AfterExecution") {
      if (failedAt >= 0 && d.names.length !== list.length) v.push(`${where} stopped after ${d.names[failedAt]} failed: every AfterExecution hook must run`)
    } else if (failedAt >= 0 && failedAt !== d.outcomes.length - 1) v.push(`${where} went on after ${d.names[failedAt]} failed it`)
    if (d.names.length < list.length && failedAt < 0) {
      // Cut short: only by an abort, and only the dispatch the abort found in progress.
      const lastBeforeEnd = ae === undefined ? n === ds.length - 1 : ds[ds.indexOf(ae) - 1] === d
      const cut = r.marked ? d.ended !== "success" && d.ended !== "failure" : lastBeforeEnd
      if (abort < 0 || abort > (ae?.start ?? Infinity) || !cut) {
        v.push(`${where} stopped after [${d.names.join(", ")}] of [${list.join(", ")}] with no failure${abort < 0 ? " and no abort" : ""}`)
      }
    }
    if (r.marked && d.ended === "failure" && failedAt < 0) v.push(`${where} failed with no hook failing`)
  })
  // A hook skipped on error passes its input on unchanged to the next generated hook.
  for (let i = 0; i < r.log.length; i++) {
    const e = r.log[i] as Entry
    if (e._tag !== "Event" || e.event.outcome !== "skipped") continue
    let enter: Entry | undefined
    for (let j = i - 1; j >= 0; j--) {
      const c = r.log[j] as Entry
      if (c._tag === "Enter" && c.hook === e.event.hook && c.trigger === e.event.trigger) {
        enter = c
        break
      }
    }
    const next = r.log[i + 1]
    if (enter?._tag === "Enter" && next?._tag === "Enter" && next.trigger === e.event.trigger && next.ctx !== enter.ctx) {
      const list = r.explain[e.event.trigger] ?? []
      if (list.indexOf(next.hook) === list.indexOf(e.event.hook) + 1) {
        v.push(`${next.hook} did not get the input of ${e.event.hook}, which was skipped on error (${at(r, i)})`)
      }
    }
  }
  // Each event tells what its hook did.
  const pending = new Map<string, Entry>()
  r.log.forEach((e, i) => {
    if (e._tag === "Exit" || e._tag === "Raise") pending.set(`${e.trigger} ${e.hook}`, e)
    if (e._tag !== "Event") return
    const key = `${e.event.trigger} ${e.event.hook}`
    const did = pending.get(key)
    pending.delete(key)
    if (did === undefined) return
    const failure = r.onError[e.event.hook] === "skip" ? "skipped" : "failed"
    // A hand-built context is refused (a failure) or taken normalised (a change).
    if (e.event.hook.endsWith(":handbuilt") && (e.event.outcome === failure || e.event.outcome === "changed")) return
    const expected = did._tag === "Raise"
      ? failure
      : did._tag === "Exit" && did.output === did.input
      ? "unchanged"
      : did._tag === "Exit" && isContext(did.output) && did.output.trigger === did.input.trigger && !splitsARound(did.input, did.output) &&
          !forgesASuspension(did.input, did.output)
      ? "changed"
      : failure
    if (e.event.outcome !== expected) v.push(`${e.event.hook} on ${e.event.trigger} was reported ${e.event.outcome}, it ${did._tag === "Raise" ? "threw" : `returned ${expected === "changed" ? "a new context" : expected === "unchanged" ? "its input" : did._tag === "Exit" && isContext(did.output) && splitsARound(did.input, did.output) ? "a history with a message between tool calls and their results" : "no valid context"}`} (${at(r, i)})`)
  })
  // Tool hooks run in call order; concurrently, every BeforeToolUse runs before the step's tools.
  const final = finalState(r, ds)
  const before = new Map<string, Dispatch>()
  const after = new Map<string, Dispatch>()
  for (const d of ds) {
    const id = d.input?.toolCall?.id
    if (id === undefined) continue
    if (d.trigger === "BeforeToolUse" && !before.has(id)) before.set(id, d)
    if (d.trigger === "AfterToolUse" && !after.has(id)) after.set(id, d)
  }
  const ranAt = new Map<string, number>()
  r.log.forEach((e, i) => {
    if (e._tag === "ToolRun" && !ranAt.has(e.callId)) ranAt.set(e.callId, i)
  })
  for (const m of final === undefined ? [] : messagesOf(final)) {
    if (m.role !== "assistant" || m.toolCalls.length < 2) continue
    const ids = m.toolCalls.map((c) => c.id)
    for (const [name, map] of [["BeforeToolUse", before], ["AfterToolUse", after]] as const) {
      const starts = ids.map((id) => map.get(id)?.start).filter((x): x is number => x !== undefined)
      if (starts.some((x, i) => i > 0 && x < (starts[i - 1] as number))) v.push(`${name} did not run in call order for [${ids.join(", ")}]`)
    }
    // The last BeforeToolUse of the step's calls in this run call (a resumed step runs only
    // its decided calls; a rejected one has none).
    const lastBefore = ids.map((id) => before.get(id)).filter((d) => d !== undefined).at(-1)
    ids.forEach((id, i) => {
      const ran = ranAt.get(id)
      if (ran === undefined) return
      if (r.toolConcurrency === "concurrent" && lastBefore !== undefined && ran < lastBefore.end) {
        v.push(`tool call ${id} ran before BeforeToolUse of ${lastBefore.input?.toolCall?.id} ended (concurrent tools run after every BeforeToolUse)`)
      }
      const nextBefore = before.get(ids[i + 1] ?? "")
      if (r.toolConcurrency === "sequential" && nextBefore !== undefined && ran > nextBefore.start) {
        v.push(`tool call ${id} ran after BeforeToolUse of ${ids[i + 1]} began (sequential tools run one after the other)`)
      }
    })
  }
  if (r.streamEvents !== undefined) {
    const streamed = r.streamEvents.flatMap((e) => (e._tag === "HookExecuted" ? [e.event] : []))
    const sunk = r.log.flatMap((e) => (e._tag === "Event" ? [e.event] : []))
    const n = Math.min(streamed.length, sunk.length)
    for (let i = 0; i < n; i++) {
      if (streamed[i] !== sunk[i]) {
        v.push(`stream event ${i} (${streamed[i]?.hook}) is not the sink's (${sunk[i]?.hook})`)
        break
      }
    }
    if (streamed.length > sunk.length) v.push("the stream has hook events the sink never got")
  }
  return v
}

/**
 * A continuation never overrides a hard stop (errors, limits, an abort), even next to a
 * soft one that ranks higher: the loop goes on only after soft ones, and never after a
 * failing OnStop hook.
 */
export const hardStopsHold: Checker = (r) => {
  const v: Array<string> = []
  const ds = dispatchesOf(r)
  ds.forEach((d, n) => {
    if (d.trigger !== "OnStop" || d.input === undefined) return
    // After a stop check the loop either ends (AfterExecution), fails (OnError) or goes on.
    const next = ds[n + 1]
    if (next === undefined || next.trigger === "AfterExecution" || next.trigger === "OnError") return
    if (d.outcomes.includes("failed")) {
      v.push(`the loop went on after OnStop at ${at(r, d.start)} although an OnStop hook failed (a failing OnStop hook cannot continue the run)`)
      return
    }
    const hard = d.input.state.execution.stopSignals.filter((s) => StopSignal.isHard(s))
    if (hard.length > 0) {
      v.push(`the loop went on after OnStop at ${at(r, d.start)} although it held the hard stop ${hard.map((s) => `${s.reason} from ${s.source}`).join(", ")} (signals: ${d.input.state.execution.stopSignals.map((s) => s.reason).join(", ")})`)
    }
  })
  return v
}

/** State changes made by any hook in a dispatch that completed persist (tool hooks included). */
export const statePersists: Checker = (r) => {
  const v: Array<string> = []
  const ds = dispatchesOf(r)
  const final = finalState(r, ds)
  if (final === undefined) return v
  ds.forEach((d) => {
    const complete = r.marked ? d.ended === "success" : !d.outcomes.includes("failed") && d.names.length === (r.explain[d.trigger]?.length ?? 0)
    if (!complete || (d.trigger === "AfterExecution" && r.final === undefined)) return
    for (let i = d.start; i <= d.end; i++) {
      const e = r.log[i] as Entry
      if (e._tag !== "Exit" || !isContext(e.output) || e.output.trigger !== e.input.trigger) continue
      const key = e.hook
      if (Object.hasOwn(e.output.state.metadata, key) && !Object.hasOwn(e.input.state.metadata, key) && !Object.hasOwn(final.metadata, key)) {
        v.push(`${e.hook} wrote "${key}" into the state on ${e.trigger} (${at(r, i)}), the final state lost it`)
      }
    }
  })
  return v
}

/** The execution record adds up: step indices, usage, times. */
export const recordConsistent: Checker = (r) => {
  const v: Array<string> = []
  const final = finalState(r)
  if (final === undefined) return v
  const steps = final.execution.steps.toArray()
  steps.forEach((step, i) => {
    if (step.index !== i) v.push(`step ${i} has index ${step.index}`)
    if (step.completedAt !== undefined && step.completedAt < step.startedAt) v.push(`step ${i} completed before it started`)
  })
  const input = steps.reduce((n, s) => n + s.usage.inputTokens, 0)
  const output = steps.reduce((n, s) => n + s.usage.outputTokens, 0)
  const usage = final.execution.usage
  // A step that suspended counts its model call in the run's usage, and leaves no record of it while it waits (docs/loop.md).
  const open = endedSuspended(r) && usage.inputTokens >= input && usage.outputTokens >= output
  if (!open && (usage.inputTokens !== input || usage.outputTokens !== output)) {
    v.push(`the run's usage ${usage.inputTokens}+${usage.outputTokens} is not the sum of its steps' ${input}+${output}`)
  }
  const inputMessages = prefixDifference(messagesOf(r.input), messagesOf(final))
  if (inputMessages !== undefined) v.push(`the final state lost the input's messages: ${inputMessages}`)
  let last = -Infinity
  for (const [i, e] of r.log.entries()) {
    if (e._tag !== "Enter") continue
    if (e.ctx.createdAt < last) {
      v.push(`${e.hook} on ${e.trigger} got a context made at ${e.ctx.createdAt}, before an earlier one (${last}) (${at(r, i)})`)
      break
    }
    if (e.ctx.updatedAt < e.ctx.createdAt) v.push(`a context updated (${e.ctx.updatedAt}) before it was made (${e.ctx.createdAt}) (${at(r, i)})`)
    last = e.ctx.createdAt
  }
  return v
}

const sameJson = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b)

/**
 * What the hooks return is what happens (marking interceptor): the model gets the
 * request BeforeInference returned, the assistant message is the response AfterInference
 * returned, a tool gets the arguments BeforeToolUse returned.
 */
export const commitsWhatHooksReturned: Checker = (r) => {
  const v: Array<string> = []
  if (!r.marked) return v
  let request: { readonly value: unknown; readonly at: number } | undefined
  const responses: Array<{ readonly text: string; readonly ids: string; readonly at: number }> = []
  const args = new Map<string, unknown>()
  r.log.forEach((e, i) => {
    if (e._tag === "DispatchEnd" && e.outcome === "success" && e.ctx !== undefined) {
      if (e.trigger === "BeforeInference") request = { value: e.ctx.request, at: i }
      if (e.trigger === "AfterInference" && e.ctx.response !== undefined) {
        responses.push({ text: e.ctx.response.text, ids: e.ctx.response.toolCalls.map((c) => c.id).join(","), at: i })
      }
      if (e.trigger === "BeforeToolUse" && e.ctx.toolCall !== undefined) args.set(e.ctx.toolCall.id, e.ctx.toolCall.arguments)
    }
    if (e._tag === "DriverCall") {
      if (request !== undefined && !sameJson(request.value, e.request)) {
        v.push(`the model got a request other than the one BeforeInference returned at ${at(r, request.at)} (${at(r, i)})`)
      }
      request = undefined
    }
    if (e._tag === "ToolRun" && args.has(e.callId) && !sameJson(args.get(e.callId), e.args)) {
      v.push(`tool ${e.tool} got ${JSON.stringify(e.args)} for ${e.callId}, BeforeToolUse returned ${JSON.stringify(args.get(e.callId))}`)
    }
  })
  const final = finalState(r)
  if (final !== undefined) {
    const assistants = messagesOf(final).slice(r.input.context.messages.length).filter((m) => m.role === "assistant")
    responses.forEach((response, i) => {
      const m = assistants[i]
      if (m === undefined || m.role !== "assistant") {
        v.push(`AfterInference returned a response at ${at(r, response.at)} that was never committed`)
        return
      }
      const ids = m.toolCalls.map((c) => c.id).join(",")
      if (m.content !== response.text || ids !== response.ids) {
        v.push(`assistant message ${i} is ${JSON.stringify(m.content)} [${ids}], AfterInference returned ${JSON.stringify(response.text)} [${response.ids}] at ${at(r, response.at)}`)
      }
    })
  }
  return v
}

/**
 * With checked text, a stream emits each step's text once, as committed (after
 * AfterInference), and its reasoning alike (issue 25).
 */
export const streamsCheckedText: Checker = (r) => {
  const v: Array<string> = []
  // A suspended step's text belongs to a step recorded later (when decided).
  if (r.streamEvents === undefined || !r.checkedText || r.final === undefined || endedSuspended(r)) return v
  for (const [tag, what] of [["TextDelta", "text"], ["ReasoningDelta", "reasoning"]] as const) {
    const deltas = new Map<number, Array<string>>()
    for (const e of r.streamEvents) if (e._tag === tag) deltas.set(e.step, [...(deltas.get(e.step) ?? []), e.text])
    for (const step of newSteps(r, r.final)) {
      // The step a resume ends streamed its text in the call that suspended.
      if (resumedStep(r, step.index)) continue
      const text = (what === "text" ? step.response?.text : step.response?.reasoning) ?? ""
      const got = deltas.get(step.index) ?? []
      deltas.delete(step.index)
      const want = text === "" ? [] : [text]
      if (got.join("\u0000") !== want.join("\u0000")) v.push(`step ${step.index} streamed ${JSON.stringify(got)}, its committed ${what} is ${JSON.stringify(text)}`)
    }
    for (const [step, texts] of deltas) v.push(`${what} ${JSON.stringify(texts)} streamed for step ${step}, which the run never recorded`)
  }
  return v
}

/** Streamed or not, the same hooks see the same contexts and the run ends in the same state. */
export const sameWhenStreamed: Checker = (r) => {
  const twin = r.twin
  if (twin === undefined) return []
  const seen = (x: Recording) =>
    x.log.flatMap((e) =>
      e._tag === "Enter"
        ? [`${e.trigger} ${e.hook} ${JSON.stringify(e.ctx)}`]
        : e._tag === "WrapEnter" || (e._tag === "WrapNext" && e.late !== true) // a late next: when it comes is timing
        ? [`${e.point} ${e.hook} ${e._tag} ${JSON.stringify(e.ctx)}`]
        : []
    )
  const a = seen(r)
  const b = seen(twin)
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) {
      // From a little before the first character that differs.
      const x = a[i] ?? ""
      const y = b[i] ?? ""
      let at = 0
      while (at < x.length && x[at] === y[at]) at++
      const from = Math.max(0, at - 200)
      return [`context ${i} differs between run and stream (at character ${at}):\n  run:    ${a[i] === undefined ? "(none)" : x.slice(from, from + 400)}\n  stream: ${b[i] === undefined ? "(none)" : y.slice(from, from + 400)}`]
    }
  }
  if (JSON.stringify(r.final) !== JSON.stringify(twin.final)) return ["the final states differ between run and stream"]
  return []
}

/**
 * The first message that comes between an assistant's tool calls and the last of their
 * results (the end of the history may come first: results still to come), or -1.
 */
export const splitAt = (messages: ReadonlyArray<Message>): number => {
  let waiting: Set<string> | undefined
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as Message
    if (waiting !== undefined) {
      if (m.role === "tool" && waiting.delete(m.toolCallId)) {
        if (waiting.size === 0) waiting = undefined
        continue
      }
      return i
    }
    if (m.role === "assistant" && m.toolCalls.length > 0) waiting = new Set(m.toolCalls.map((c) => c.id))
  }
  return -1
}

// Whether a hook's return put a message between tool calls and their results (its input had none there).
// Issue 22: a pending call a hook added that no store could keep (a cyclic or non-JSON
// payload, a reason that is not a text): the hook's return is refused.
const forgesASuspension = (input: HookContext, output: HookContext): boolean => {
  const next = output.state.execution.pendingCalls
  const prev = input.state.execution.pendingCalls ?? []
  return next !== undefined && next !== prev && next.some((p) => !prev.includes(p) && !Codecs.PendingCall.is(p))
}

const splitsARound = (input: HookContext, output: HookContext): boolean => {
  const messages = output.state.context?.messages
  return AppendLog.isAppendLog(messages) && splitAt(messagesOf(output.state)) >= 0 && splitAt(messagesOf(input.state)) < 0
}

/**
 * Where `messages` break the rule: a call without exactly one tool message directly
 * after its assistant message (among the tool messages that follow it: providers reject
 * any other message between a call and its result, and no hook may put one there).
 */
export const unansweredCalls = (messages: ReadonlyArray<Message>): ReadonlyArray<string> => {
  const problems: Array<string> = []
  messages.forEach((m, i) => {
    if (m.role !== "assistant" || m.toolCalls.length === 0) return
    const results: Array<string> = []
    for (let j = i + 1; j < messages.length && messages[j]?.role === "tool"; j++) {
      const next = messages[j] as Message
      if (next.role === "tool") results.push(next.toolCallId)
    }
    for (const call of m.toolCalls) {
      const n = results.filter((id) => id === call.id).length
      if (n !== 1) problems.push(`call ${call.id} of message ${i} has ${n} tool messages`)
    }
  })
  return problems
}

/**
 * Issue 12, item 6: every tool call in a committed assistant message has exactly one
 * committed tool message (its result, an error or a cancellation marker) before the
 * next model request and in the final state, and every tool that ran to its end is
 * recorded in its step (an asynchronous one unless an abort or the time limit cut the
 * run while its result was on the way back).
 */
export const answersEveryCall: Checker = (r) => {
  const v: Array<string> = []
  const ds = dispatchesOf(r)
  for (const d of ds) {
    if (d.trigger !== "BeforeInference" || d.input === undefined) continue
    const problems = unansweredCalls(messagesOf(d.input.state))
    if (problems.length > 0) v.push(`a model request at ${at(r, d.start)} followed a history where ${problems[0]}`)
  }
  const final = finalState(r, ds)
  if (final === undefined) return v
  // Calls a suspended run waits on are answered when decided (resumesCleanly checks that).
  const waiting = new Set((final.execution.pendingCalls ?? []).map((p) => p.toolCall.id))
  const problems = unansweredCalls(messagesOf(final)).filter((p) => ![...waiting].some((id) => p.startsWith(`call ${id} of `) && p.endsWith(" has 0 tool messages")))
  if (problems.length > 0) v.push(`in the final state, ${problems.join("; ")}`)
  // Under WrapToolUse hooks, a run the hook did not return (it failed after it) is recorded as a ToolAttempt (issue 16).
  const recorded = new Set(final.execution.steps.toArray().flatMap((step) => [
    ...step.toolExecutions.map((e) => e.toolCall.id),
    ...(step.toolAttempts ?? []).map((a) => a.toolCallId),
  ]))
  const cut = r.log.some((e) => e._tag === "Abort") ||
    final.execution.stopSignals.some((s) => s.reason === "TimeLimitReached" && s.source === "guard:time_limit")
  // A suspended step's calls that ran are in the history, not in a step record (docs/durability.md, Known limits).
  const inHistory = endedSuspended(r) ? new Set(messagesOf(final).flatMap((m) => (m.role === "tool" ? [m.toolCallId] : []))) : new Set<string>()
  r.log.forEach((e, i) => {
    if (e._tag !== "ToolDone" || recorded.has(e.callId) || inHistory.has(e.callId)) return
    // Under WrapToolUse hooks a tool's end is not its call's: the wrap hook holds the result until it returns.
    if ((cut || toolWrapInterrupted(r)) && (!synchronousTools.has(e.tool) || hasWraps(r, "WrapToolUse"))) return
    v.push(`tool ${e.tool} ran to its end for ${e.callId} (${at(r, i)}), no step records it`)
  })
  return v
}

/** Whether an abort or the time limit cut the run (what was under way may be lost). */
/**
 * Whether a WrapToolUse hook was interrupted (concurrent tools: a sibling's wrap hook
 * failed the step): an asynchronous tool it held may end after, as after an abort.
 */
const toolWrapInterrupted = (r: Recording): boolean => r.log.some((e) => e._tag === "WrapExit" && e.point === "WrapToolUse" && e.outcome === "interrupted")

const cutShort = (r: Recording, final: AgentState): boolean =>
  r.log.some((e) => e._tag === "Abort") ||
  final.execution.stopSignals.some((s) => s.reason === "TimeLimitReached" && s.source === "guard:time_limit")

/**
 * Issue 16: every attempt is recorded in its step. With WrapInference hooks, the
 * InferenceAttempts this run call recorded are its model calls, one for one, in order,
 * failed exactly where the call failed; issue 22: whatever ended the call (a timeout
 * that cut it, the run's abort or time limit), and over resumed runs too (a resumed
 * step's attempts were made by the run call that suspended it; a step left open holds
 * this call's). With WrapToolUse hooks, every run of a tool is a ToolAttempt of its call
 * (an attempt may also end before the tool, e.g. on invalid arguments).
 */
export const recordsEveryAttempt: Checker = (r) => {
  const v: Array<string> = []
  const final = finalState(r)
  if (final === undefined) return v
  const steps = newSteps(r, final)
  if (hasWraps(r, "WrapInference")) {
    const open = endedSuspended(r) ? final.execution.suspendedStep : undefined
    const attempts = [...steps, ...(open === undefined ? [] : [open])]
      .filter((step) => !resumedStep(r, step.index))
      .flatMap((step) => step.attempts ?? [])
    const calls = r.log.flatMap((e) => (e._tag === "DriverCall" ? [e] : []))
    const ends = callEnds(r)
    if (attempts.length !== calls.length) v.push(`${calls.length} model calls, the steps record ${attempts.length} InferenceAttempts`)
    else {
      calls.forEach((call, i) => {
        const failed = (attempts[i] as Step.InferenceAttempt).error !== undefined
        const fails = callFails(call, ends)
        if (failed !== fails) v.push(`model call #${call.index} ${fails ? "failed" : "answered"}, its InferenceAttempt says it ${failed ? "failed" : "answered"}`)
      })
    }
  } else if (steps.some((step) => step.attempts !== undefined)) v.push("a step records InferenceAttempts without WrapInference hooks")
  if (cutShort(r, final)) return v
  // A call that ends suspended again leaves its step open: what ran is in the history, not in a record (Known limits).
  if (hasWraps(r, "WrapToolUse") && !endedSuspended(r)) {
    const attempts = new Map<string, number>()
    for (const step of steps) for (const a of step.toolAttempts ?? []) attempts.set(a.toolCallId, (attempts.get(a.toolCallId) ?? 0) + 1)
    // Runs that ended (an attempt a failing sibling interrupted is not one, as for model calls).
    const runs = new Map<string, number>()
    const interrupted = toolWrapInterrupted(r)
    for (const e of r.log) if (e._tag === "ToolDone" && !(interrupted && !synchronousTools.has(e.tool))) runs.set(e.callId, (runs.get(e.callId) ?? 0) + 1)
    for (const [id, n] of runs) {
      const recorded = attempts.get(id) ?? 0
      if (recorded < n) v.push(`call ${id} ran ${n} time(s), its step records ${recorded} ToolAttempt(s)`)
    }
  } else if (!hasWraps(r, "WrapToolUse") && steps.some((step) => step.toolAttempts !== undefined)) v.push("a step records ToolAttempts without WrapToolUse hooks")
  return v
}

/**
 * Issue 16: a stream that emits text live drops the text of a failed attempt (a
 * `TextReset`) before the text of the next one: per step, the deltas since the last
 * reset are the committed text (none for a step whose answer no model streamed, and
 * none for a step that recorded no answer).
 */
export const resetsRetriedText: Checker = (r) => {
  const v: Array<string> = []
  if (r.streamEvents === undefined || r.checkedText || r.final === undefined || cutShort(r, r.final) || endedSuspended(r)) return v
  // An AfterInference hook may replace the answer the model streamed.
  if ((r.explain.AfterInference?.length ?? 0) > 0) return v
  // The reasoning (issue 25) streams and resets with the text.
  for (const [tag, what] of [["TextDelta", "text"], ["ReasoningDelta", "reasoning"]] as const) {
    const text = new Map<number, string>()
    for (const e of r.streamEvents) {
      if (e._tag === tag) text.set(e.step, (text.get(e.step) ?? "") + e.text)
      if (e._tag === "TextReset") text.set(e.step, "")
    }
    for (const step of newSteps(r, r.final)) {
      if (resumedStep(r, step.index)) continue
      const response = step.response
      const want = response === undefined || response.modelId === "wrap" || response.modelId === "cache"
        ? ""
        : (what === "text" ? response.text : response.reasoning ?? "")
      const got = text.get(step.index) ?? ""
      text.delete(step.index)
      if (got !== want) v.push(`step ${step.index} streamed ${what} ${JSON.stringify(got)} after its last reset, its answer's is ${JSON.stringify(want)}`)
    }
    for (const [step, got] of text) if (got !== "") v.push(`${what} ${JSON.stringify(got)} streamed for step ${step}, which recorded no answer, and never reset`)
  }
  return v
}

/**
 * Issue 22: the state a run ends with reads back from JSON as it is (what a store
 * acknowledges it can load): no cycle a hook's suspension brought in, no NaN or
 * Infinity a constructor kept (JSON writes them as null).
 */
export const loadsBack: Checker = (r) => {
  const final = finalState(r)
  if (final === undefined) return []
  let text: string
  try {
    text = Codecs.stringifyState(final)
  } catch (cause) {
    return [`the final state does not encode: ${String(cause).slice(0, 200)}`]
  }
  const back = Codecs.fromJson(Codecs.AgentState, text)
  if (back._tag === "Failure") return [`the final state does not read back: ${back.failure.message}`]
  const again = Codecs.stringifyState(back.success)
  return again === text ? [] : ["the final state reads back as another state"]
}

export const properties: Readonly<Record<string, Checker>> = {
  answersEveryCall,
  loadsBack,
  terminates,
  hardStopsHold,
  oneEnd,
  keepsMessages,
  frozen,
  blockedNeverRuns,
  interruptedPermissionDenies,
  firesInExplainedOrder,
  statePersists,
  recordConsistent,
  sameWhenStreamed,
  commitsWhatHooksReturned,
  streamsCheckedText,
  recordsEveryAttempt,
  resetsRetriedText,
}

/**
 * Issue 13, over a run and every run call that resumed it: each resume starts from the
 * state the last call ended with (encoded and decoded, equal); a list of decisions with
 * an unknown call, one call twice, a call decided before or a forged decision (issue 22)
 * given to agent.resume is a DecisionInvalid of that reason, and runs no hook, model call
 * or tool and changes nothing (the state it was given is the same); no call
 * runs before its decision, none runs twice (wrap hooks' retries aside), a rejected call
 * is answered with the person's message; the history only grows; the twin resumed as
 * often.
 */
export const resumesCleanly: Checker = (r) => {
  const v: Array<string> = []
  const chain = chainOf(r)
  if (r.twin !== undefined && r.twinCalls !== undefined && r.twinCalls !== chain.length) {
    v.push(`the run made ${chain.length} run call(s), its streamed twin ${r.twinCalls}`)
  }
  const runs = new Map<string, number>()
  const retried = chain.some((c) => hasWraps(c, "WrapToolUse"))
  chain.forEach((call, k) => {
    const final = finalState(call)
    // Only a suspended run keeps its open step's record: a step that ended otherwise is closed.
    if (final !== undefined && final.execution.status !== "suspended" && final.execution.suspendedStep !== undefined) {
      v.push(`run call #${k} ended ${final.execution.status} with the open step's record still in the state (suspendedStep)`)
    }
    const decided = new Set<string>()
    for (const e of call.log) {
      if (e._tag !== "ToolRun") continue
      runs.set(e.callId, (runs.get(e.callId) ?? 0) + 1)
      if ((runs.get(e.callId) ?? 0) > 1 && !retried) v.push(`call ${e.callId} ran again in run call #${k}`)
    }
    const next = call.resumed
    if (next === undefined) return
    if (final === undefined) {
      v.push(`run call #${k} was resumed without a final state`)
      return
    }
    if (final.execution.status !== "suspended") v.push(`run call #${k} ended ${final.execution.status} and was resumed`)
    const input = next.recording.input
    if (Codecs.stringifyState(input) !== Codecs.stringifyState(final)) v.push(`run call #${k + 1} did not start from the state run call #${k} ended with${next.encoded ? " (encoded and decoded)" : ""}`)
    const lost = prefixDifference(messagesOf(final), messagesOf(finalState(next.recording) ?? input))
    if (lost !== undefined) v.push(`run call #${k + 1} lost history: ${lost}`)
    const probe = next.probe
    // A repeat of a decision (issue 26) is accepted as a no-op; every other probe is refused.
    const expected = probe?.kind === "repeat" ? "accepted" : `DecisionInvalid:${probe?.kind}`
    const refused = probe?.kind === "repeat" ? "a no-op" : "refused"
    if (probe !== undefined && probe.got !== expected) {
      v.push(`resuming run call #${k} with ${Json.excerpt(probe.decisions, 200)} gave ${probe.got}, not ${expected}`)
    }
    if (probe !== undefined && probe.ran.length > 0) v.push(`resuming run call #${k} with ${Json.excerpt(probe.decisions, 200)} was ${refused}, but ran ${probe.ran.slice(0, 3).join(", ")}`)
    if (probe !== undefined && probe.written) v.push(`resuming run call #${k} with ${Json.excerpt(probe.decisions, 200)} was ${refused}, but changed the state it was given`)
    // What the next call did with each decision.
    const after = finalState(next.recording)
    const results = new Map((after === undefined ? [] : messagesOf(after)).flatMap((m) => (m.role === "tool" ? [[m.toolCallId, m] as const] : [])))
    for (const d of next.decisions) {
      decided.add(d.toolCallId)
      const m = results.get(d.toolCallId)
      // As for a block: a step that failed before committing it leaves a cancellation marker instead.
      if (d._tag === "Reject" && after !== undefined && (m === undefined || !m.isError || !(m.content.includes(d.message) || Tools.isCancelled(m)))) {
        v.push(`call ${d.toolCallId} was rejected, the model reads ${m === undefined ? "nothing" : JSON.stringify(m.content)}`)
      }
      if (d._tag === "Reject" && next.recording.log.some((e) => e._tag === "ToolRun" && e.callId === d.toolCallId)) v.push(`the rejected call ${d.toolCallId} ran`)
    }
    for (const p of final.execution.pendingCalls ?? []) {
      if (decided.has(p.toolCall.id)) continue
      if (next.recording.log.some((e) => e._tag === "ToolRun" && e.callId === p.toolCall.id)) v.push(`call ${p.toolCall.id} ran in run call #${k + 1} without a decision`)
    }
  })
  // A call a run call waits on never ran in it.
  chain.forEach((call, k) => {
    const final = finalState(call)
    for (const p of final?.execution.pendingCalls ?? []) {
      if (call.input.execution.pendingCalls?.some((q) => q.toolCall.id === p.toolCall.id)) continue
      if (call.log.some((e) => e._tag === "ToolRun" && e.callId === p.toolCall.id)) v.push(`call ${p.toolCall.id} ran in run call #${k}, which then waited on it`)
    }
  })
  return v
}

export interface Violation {
  readonly property: string
  readonly detail: string
}

/** Every violation of every property. */
export const violations = (r: Recording): ReadonlyArray<Violation> => {
  const chain = chainOf(r)
  // Each run call has every property (issue 13: a resumed run as well), and the chain its own.
  const each = chain.flatMap((call, k) => callViolations(call).map((found) => (k === 0 ? found : { ...found, detail: `run call #${k}: ${found.detail}` })))
  return [...each, ...resumesCleanly(r).map((detail) => ({ property: "resumesCleanly", detail }))]
}

const callViolations = (r: Recording): ReadonlyArray<Violation> => {
  // A run that had to be killed breaks the other properties only as a consequence.
  if (r.exit === "runaway" || r.exit === "timeout") return terminates(r).map((detail) => ({ property: "terminates", detail }))
  return Object.entries(properties).flatMap(([property, check]) => check(r).map((detail) => ({ property, detail })))
}

export { AgentState }
