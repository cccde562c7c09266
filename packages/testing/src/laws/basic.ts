/**
 * The laws every pure hook obeys, whatever it does: it never mutates its input, keeps
 * the trigger, returns frozen data, and is deterministic.
 *
 * @since 0.1.0
 */
import { HookContext, type Hook } from "@hookline/core"
import fc from "fast-check"
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
    const path = firstUnfrozen(out)
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
