// Whether a value the run made (a dispatch's result, a tool's execution) is an Effect to
// yield. `Effect.isEffect` is a `TypeId in u` test shared by every caller in the
// program, so its cache is megamorphic (about 40 ns a call on this machine kind) and
// the run asks about ten times a step; a load of the same id, at call sites that see
// only a few shapes, answers the same for any object at about half the cost.
import { Effect } from "effect"

const TypeId: string = Effect.TypeId

/** `Effect.isEffect` for a value known to be an object (not for untrusted input). */
export const isEffect = <A extends object>(u: A | Effect.Effect<unknown, unknown, unknown>): u is Effect.Effect<unknown, unknown, unknown> =>
  (u as unknown as Record<string, unknown>)[TypeId] !== undefined
