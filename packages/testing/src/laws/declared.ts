/**
 * Laws a hook obeys because of what it is declared to be: a guard stays fired, a block
 * stays blocked, a hook declared idempotent is, two hooks declared independent commute.
 *
 * @since 0.1.0
 */
import {
  AgentState,
  HookContext,
  HookTrigger,
  InferenceResponse,
  Step,
  Usage,
  type Hook,
  type StopReason,
  type StopSignal,
} from "@hookline/core"
import fc from "fast-check"
import { differs, isViolation, output, type Law } from "./Law.js"

// ---------------------------------------------------------------------------------
// A guard stays fired
// ---------------------------------------------------------------------------------

/**
 * What a guard is declared to raise: its signals' source (its hook name, by
 * convention) and reason. Either may be left out: then any signal the hook adds counts.
 *
 * @since 0.1.0
 * @category models
 */
export interface GuardDeclaration {
  readonly source?: string | undefined
  readonly reason?: StopReason | undefined
}

/**
 * How far a run goes on between two contexts: more steps (each with its tokens and
 * finish reason), a later clock reading.
 *
 * @since 0.1.0
 * @category models
 */
export interface Progress {
  readonly steps: number
  /** Tokens of each new step. */
  readonly tokens: number
  readonly ms: number
  readonly finishReason: InferenceResponse.FinishReason
}

/**
 * A run that goes on: the hops tried until the guard fires, then one more hop to a
 * later state.
 *
 * @since 0.1.0
 * @category models
 */
export interface GuardRun {
  readonly hops: ReadonlyArray<Progress>
  readonly later: Progress
}

const progressArbitrary: fc.Arbitrary<Progress> = fc.record({
  steps: fc.integer({ min: 1, max: 6 }),
  tokens: fc.nat(5_000),
  ms: fc.nat(120_000),
  finishReason: fc.constantFrom(...InferenceResponse.finishReasons),
})

const guardRunArbitrary: fc.Arbitrary<GuardRun> = fc.record({
  hops: fc.array(progressArbitrary, { maxLength: 10 }),
  later: progressArbitrary,
})

const defaultRun: GuardRun = Object.freeze({
  hops: Object.freeze(Array.from({ length: 8 }, () => Object.freeze({ steps: 4, tokens: 2_500, ms: 60_000, finishReason: "stop" as const }))),
  later: Object.freeze({ steps: 1, tokens: 100, ms: 1_000, finishReason: "stop" as const }),
})

/**
 * The context a run reaches after `hop`: more steps appended (usage added), the
 * clock later, everything else kept. A run that had not started is running from `ctx`'s
 * clock reading.
 *
 * @since 0.1.0
 * @category combinators
 */
export const progress = (ctx: HookContext, hop: Progress): HookContext => {
  let state = ctx.state
  if (state.execution.startedAt === undefined) state = AgentState.withStatus(state, "running", ctx.createdAt)
  for (let i = 0; i < hop.steps; i++) {
    const usage = Usage.make(Math.ceil(hop.tokens / 2), Math.floor(hop.tokens / 2))
    const response = InferenceResponse.make({ finishReason: hop.finishReason, usage })
    state = AgentState.appendStep(
      state,
      Step.make({ index: AgentState.stepCount(state), startedAt: ctx.createdAt, completedAt: ctx.createdAt, response }),
    )
  }
  return HookContext.make({
    trigger: ctx.trigger,
    state,
    createdAt: ctx.createdAt + hop.ms,
    request: ctx.request,
    response: ctx.response,
    toolCall: ctx.toolCall,
    toolExecution: ctx.toolExecution,
    errors: ctx.errors,
    metadata: ctx.metadata,
    runContext: ctx.runContext,
  })
}

const same = (a: StopSignal, b: StopSignal) => a.reason === b.reason && a.source === b.source
const carries = (ctx: HookContext, signal: StopSignal) => ctx.state.execution.stopSignals.some((s) => same(s, signal))
const showSignal = (s: StopSignal) => `${s.reason} from "${s.source}"`
const showHop = (h: Progress) => `${h.steps} more step(s) of ${h.tokens} tokens, finish reason ${h.finishReason}, ${h.ms} ms later`

type Firing =
  | { readonly _tag: "Never" }
  | { readonly _tag: "Broken"; readonly violation: string }
  | { readonly _tag: "Fired"; readonly out: HookContext; readonly signals: ReadonlyArray<StopSignal>; readonly hops: number }

// Runs the guard along the run until it adds a declared signal.
const fire = (hook: Hook, ctx: HookContext, run: GuardRun, declared: GuardDeclaration): Firing => {
  const matches = (s: StopSignal) =>
    (declared.source === undefined || s.source === declared.source) && (declared.reason === undefined || s.reason === declared.reason)
  let x = ctx
  for (let i = 0;; i++) {
    const out = output(hook, x)
    if (isViolation(out)) return { _tag: "Broken", violation: i === 0 ? out.violation : `${out.violation} (after ${i} hop(s) of the run)` }
    const signals = out.state.execution.stopSignals.filter((s) => matches(s) && !carries(x, s))
    if (signals.length > 0) return { _tag: "Fired", out, signals, hops: i }
    const hop = run.hops[i]
    if (hop === undefined) return { _tag: "Never" }
    x = progress(out, hop)
  }
}

/**
 * A guard that fired stays fired. The guard runs on a context, and, while it has not
 * fired, on the contexts a run reaches as it goes on (more steps, more tokens, a later
 * clock: `progress`). Once its output carries a signal it added, it must still carry
 * it when the guard runs again on that output, and on a later state built from it.
 *
 * @since 0.1.0
 * @category laws
 */
export const guardStaysFired = (declared: GuardDeclaration = {}): Law<GuardRun> => ({
  name: "guardStaysFired",
  description: "once its stop signal is raised, running it again (now or later in the run) keeps the signal",
  appliesTo: () => true,
  extra: guardRunArbitrary,
  exercised: (hook, ctx, run = defaultRun) => fire(hook, ctx, run, declared)._tag === "Fired",
  check: (hook, ctx, run = defaultRun) => {
    const fired = fire(hook, ctx, run, declared)
    if (fired._tag === "Never") return undefined
    if (fired._tag === "Broken") return fired.violation
    const again = output(hook, fired.out)
    if (isViolation(again)) return `it fired, then, run again on its own output: ${again.violation}`
    const dropped = fired.signals.find((s) => !carries(again, s))
    if (dropped !== undefined) return `it fired (${showSignal(dropped)}), then dropped that signal when run again on its own output`
    const later = output(hook, progress(fired.out, run.later))
    if (isViolation(later)) return `it fired, then, on a later state (${showHop(run.later)}): ${later.violation}`
    const lost = fired.signals.find((s) => !carries(later, s))
    return lost === undefined
      ? undefined
      : `it fired (${showSignal(lost)}), then dropped that signal on a later state (${showHop(run.later)})`
  },
})

// ---------------------------------------------------------------------------------
// A block stays blocked
// ---------------------------------------------------------------------------------

const toolTriggers: ReadonlySet<HookTrigger> = new Set([HookTrigger.BeforeToolUse, HookTrigger.AfterToolUse])

/**
 * On a tool call an earlier hook blocked, the output is still blocked, with the same
 * reason: `toolExecutionBlocked` true and the execution `blocked`. The law blocks each
 * generated tool context with a generated reason (one already blocked keeps its own).
 *
 * @since 0.1.0
 * @category laws
 */
export const blockStaysBlocked: Law<string> = {
  name: "blockStaysBlocked",
  description: "a blocked tool call stays blocked, with the same reason",
  appliesTo: (trigger) => toolTriggers.has(trigger),
  extra: fc.string({ maxLength: 12 }),
  prepare: (ctx, reason) => HookContext.withToolExecutionBlocked(ctx, reason),
  check: (hook, ctx, reason = "blocked by an earlier hook") => {
    if (ctx.toolCall === undefined) return undefined
    // A context not blocked yet is blocked here, so the law runs on any tool context.
    const blocked = HookContext.withToolExecutionBlocked(ctx, reason)
    const expected = blocked.toolExecution?.status === "blocked" ? blocked.toolExecution.reason : reason
    const out = output(hook, blocked)
    if (isViolation(out)) return out.violation
    if (out.toolExecutionBlocked !== true) {
      return `it lifted the block: toolExecutionBlocked is ${String(out.toolExecutionBlocked)} on the output (a block is final)`
    }
    const execution = out.toolExecution
    if (execution?.status !== "blocked") {
      return `it replaced the blocked execution with ${execution === undefined ? "none" : `a ${execution.status} one`} (a block is final)`
    }
    if (execution.reason !== expected) {
      return `it changed the block's reason from ${JSON.stringify(expected)} to ${JSON.stringify(execution.reason)}`
    }
    return undefined
  },
}

// ---------------------------------------------------------------------------------
// Idempotent, commutes
// ---------------------------------------------------------------------------------

/**
 * Running the hook twice gives what running it once gives: `h(h(x))` equals `h(x)`.
 *
 * @since 0.1.0
 * @category laws
 */
export const idempotent: Law = {
  name: "idempotent",
  description: "applied twice, gives what it gives applied once",
  appliesTo: () => true,
  extra: fc.constant(undefined),
  check: (hook, ctx) => {
    const once = output(hook, ctx)
    if (isViolation(once)) return once.violation
    const twice = output(hook, once)
    if (isViolation(twice)) return `run again on its own output, ${twice.violation}`
    const d = differs(twice, once, "after two runs", "after one")
    return d === undefined ? undefined : `applying it twice differs from applying it once: ${d}`
  },
}

/**
 * The hook and `other`, declared independent, commute: running the hook then `other`
 * gives what running `other` then the hook gives.
 *
 * @since 0.1.0
 * @category laws
 */
export const commutes = (other: Hook, otherName: string = other.name || "the other hook"): Law => ({
  name: "commutes",
  description: `commutes with ${otherName}`,
  appliesTo: () => true,
  extra: fc.constant(undefined),
  check: (hook, ctx) => {
    const a = output(hook, ctx)
    if (isViolation(a)) return a.violation
    const ab = output(other, a)
    if (isViolation(ab)) return `${otherName}, run after it: ${ab.violation}`
    const b = output(other, ctx)
    if (isViolation(b)) return `${otherName}: ${b.violation}`
    const ba = output(hook, b)
    if (isViolation(ba)) return `run after ${otherName}, ${ba.violation}`
    const d = differs(ab, ba, "when it runs first", `when ${otherName} runs first`)
    return d === undefined ? undefined : `it does not commute with ${otherName}: ${d}`
  },
})
