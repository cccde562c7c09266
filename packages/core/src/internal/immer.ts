import { Immer, freeze } from "immer"

/** hookline's own immer instance: auto-freeze stays on whatever a user sets globally. */
export const immer = new Immer({ autoFreeze: true })

/**
 * Freezes plain data deeply, stopping at anything already frozen (frozen data is
 * deeply frozen by this library's invariant) and at non-plain objects such as
 * `AppendLog`, which freeze themselves.
 */
export const deepFreeze = <A>(value: A): A =>
  // The check first: on the hot path almost everything is frozen already, and this
  // small function inlines where immer's `freeze` does not.
  typeof value !== "object" || value === null || Object.isFrozen(value) ? value : freeze(value, true)
