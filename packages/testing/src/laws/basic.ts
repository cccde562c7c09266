/**
 * The laws every pure hook obeys, whatever it does: it never mutates its input, keeps
 * the trigger, returns frozen data, and is deterministic.
 *
 * @since 0.1.0
 */
import { HookContext, HookTrigger, type Hook } from "@hookline/core"
import fc from "fast-check"
import * as Arbitraries from "../Arbitraries.js"
import { within, worlds } from "../internal/environment.js"
import { difference, firstUnfrozen, rebuild, snapshot, thaw } from "../internal/inspect.js"
import { apply, describeThrow, describeValue, differs, errorText, isMutationError, isViolation, output, type Law } from "./Law.js"

const always = () => true
const none = fc.constant(undefined)

/**
 * The hook never mutates its input. Caught three ways: a write to the frozen input
 * throws in strict mode (`TypeError: Cannot assign to read only property`); a snapshot
 * of every path and object reference of the input, taken before the call, differs
 * after it; and on an unfrozen deep copy of the input, where a write succeeds, the
 * copy differs after the call (this one names the path written).
 *
 * @since 0.1.0
 * @category laws
 */
export const immutable: Law = {
  name: "immutable",
  description: "never mutates its input",
  appliesTo: always,
  extra: none,
  check: (hook, ctx) => {
    // On an unfrozen copy a write succeeds, so the path it wrote can be named.
    const copy = thaw(ctx)
    const copyBefore = snapshot(copy)
    apply(hook, copy)
    const written = difference(copyBefore, snapshot(copy))

    const before = snapshot(ctx)
    const outcome = apply(hook, ctx)
    if (outcome._tag === "Threw" && isMutationError(outcome.error)) {
      return `it mutated its input: ${written ?? "a write to the frozen input"} (on the frozen input: ${errorText(outcome.error)})`
    }
    const changed = difference(before, snapshot(ctx))
    if (changed !== undefined) return `it mutated its input: ${changed}`
    if (written !== undefined) return `it mutated its input (seen on an unfrozen copy): ${written}`
    return outcome._tag === "Threw" ? describeThrow(outcome.error) : undefined
  },
}

/**
 * The hook returns a `HookContext` of the trigger it was given.
 *
 * @since 0.1.0
 * @category laws
 */
export const keepsTrigger: Law = {
  name: "keepsTrigger",
  description: "returns a HookContext of the same trigger",
  appliesTo: always,
  extra: none,
  check: (hook, ctx) => {
    const outcome = apply(hook, ctx)
    if (outcome._tag === "Threw") return describeThrow(outcome.error)
    const out = outcome.value
    if (typeof out === "object" && out !== null && !("trigger" in out) && "state" in out) {
      return `it dropped the trigger (was ${ctx.trigger}): it returned an object without one`
    }
    if (!HookContext.isHookContext(out)) return `it returned ${describeValue(out)}, not a HookContext`
    if (out.trigger === undefined) return `it dropped the trigger (was ${ctx.trigger})`
    if (out.trigger !== ctx.trigger) return `it changed the trigger from ${ctx.trigger} to ${String(out.trigger)}`
    return undefined
  },
}

/**
 * The hook returns deeply frozen data (AppendLog items included): what it builds
 * with `HookContext.*` and `AgentState.*` is; a context spread by hand is not.
 *
 * @since 0.1.0
 * @category laws
 */
export const returnsFrozen: Law = {
  name: "returnsFrozen",
  description: "returns deeply frozen data",
  appliesTo: always,
  extra: none,
  check: (hook, ctx) => {
    const out = output(hook, ctx)
    if (isViolation(out)) return out.violation
    // The run's context is the caller's value, shared as given (HookContext.make).
    const path = firstUnfrozen(out, [ctx.runContext])
    return path === undefined
      ? undefined
      : `it returned unfrozen data at ${path} (build contexts with HookContext.* and AgentState.*, or freeze what you build)`
  },
}

// An equal context that shares no object with `ctx`; a context the codec cannot carry
// is copied by hand instead.
const separateCopy = (ctx: HookContext): HookContext => {
  try {
    return rebuild(ctx)
  } catch {
    return thaw(ctx)
  }
}

// `other` as it would come in the same run as `ctx`: the same state, and the same
// request or tool call where its trigger carries one. A cache keyed by the request
// (filled at AfterInference, read at BeforeInference) meets its own key this way.
const sibling = (ctx: HookContext, other: HookContext): HookContext => {
  const fields = HookTrigger.fields[other.trigger]
  const toolCall = fields.includes("toolCall") ? ctx.toolCall ?? other.toolCall : undefined
  const execution = other.toolExecution
  return HookContext.make({
    trigger: other.trigger,
    state: ctx.state,
    createdAt: other.createdAt,
    request: fields.includes("request") ? ctx.request ?? other.request : undefined,
    response: other.response,
    toolCall,
    toolExecution: execution === undefined || toolCall === undefined ? execution : { ...execution, toolCall },
    errors: other.errors,
    metadata: other.metadata,
    // The same run: the same per-run context.
    runContext: ctx.runContext,
  })
}

/**
 * Same input, equal output. The hook runs twice, on two equal contexts built
 * separately, each time under another controlled world: the clock (`Date`,
 * `performance.now`) an hour apart and ticking at another pace, `Math.random` and
 * `crypto.randomUUID`/`getRandomValues` giving opposite values. A hook that reads the
 * clock, draws randomness or keeps state between calls gives two different results.
 *
 * @since 0.1.0
 * @category laws
 */
export const deterministic: Law = {
  name: "deterministic",
  description: "gives equal outputs for equal inputs",
  appliesTo: always,
  extra: none,
  check: (hook, ctx) => {
    const copy = separateCopy(ctx)
    const [w1, w2] = worlds
    const first = within(w1, () => apply(hook, ctx))
    const second = within(w2, () => apply(hook, copy))
    if (first._tag === "Threw" && second._tag === "Threw") {
      return errorText(first.error) === errorText(second.error) ? describeThrow(first.error) : `it threw different errors on equal inputs: ${errorText(first.error)}, then ${errorText(second.error)}`
    }
    if (first._tag === "Threw") return `it threw on one of two equal inputs: ${describeThrow(first.error)}`
    if (second._tag === "Threw") return `it threw on one of two equal inputs: ${describeThrow(second.error)}`
    const difference = differs(first.value, second.value, "in one run", "in the other")
    return difference === undefined
      ? undefined
      : `two runs on equal contexts gave different results: ${difference} (does it read the clock, draw randomness, or keep state between calls?)`
  },
}

/**
 * No state hidden from the context (`HookLaws.deterministic` checks it too): the same context gives
 * the same result after the hook ran on other contexts of its triggers, some sharing
 * the first one's state, request or tool call. State hidden from the context (a cache
 * or a counter in a closure) shows. Not shrunk: the hidden state outlives each case,
 * so a smaller case proves nothing; the case that failed is reported as it was.
 *
 * @since 0.1.0
 * @category laws
 */
export const noHiddenState: Law<ReadonlyArray<HookContext>> = {
  name: "noHiddenState",
  description: "gives the same output for the same input, whatever ran before",
  appliesTo: always,
  // From the given contexts when there are: a hook of a typed run context sees no other.
  extra: ({ triggers, arbitraries, contexts }) =>
    fc.array(contexts ?? Arbitraries.hookContextOf(triggers, arbitraries), { minLength: 1, maxLength: 2 }),
  shrinks: false,
  // A closure's state shows within a few cases (each runs the hook up to six times).
  defaultNumRuns: 25,
  check: (hook, ctx, others = []) => {
    const first = apply(hook, ctx)
    const between = others.flatMap((other) => [sibling(ctx, other), other])
    // What the hook does with these is not this law's concern: only what it keeps.
    for (const other of between) apply(hook, other)
    const again = apply(hook, separateCopy(ctx))
    const after = `after it ran on ${between.length} other context(s) (${between.map((c) => c.trigger).join(", ")})`
    if (first._tag === "Threw" || again._tag === "Threw") {
      const a = first._tag === "Threw" ? errorText(first.error) : "returned"
      const b = again._tag === "Threw" ? errorText(again.error) : "returned"
      return a === b ? undefined : `the same context gave a different outcome ${after}: ${a} at first, then ${b}`
    }
    const later = differs(first.value, again.value, "at first", after)
    return later === undefined
      ? undefined
      : `the same context gave a different result after other contexts ran: ${later} (state hidden from the context, such as a cache or a counter in a closure: keep it in the context)`
  },
}
