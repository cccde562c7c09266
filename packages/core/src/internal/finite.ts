// The one rule of core's constructors for numbers (docs/decisions.md, "Non-finite
// numbers at construction"): JSON has no NaN or Infinity (it writes `null`), so a value
// holding one is a state, a checkpoint or an event that does not read back. A field the
// data needs (a time, a count) refuses it at construction; an error constructor never
// throws (it runs where something already went wrong), so it normalises instead.
import { HooklineError, invalidConfiguration } from "../AgentError.js"
import { excerpt } from "../Json.js"

/** `value` when it is a finite number (-0 read as 0); else throws `HooklineError(InvalidConfiguration)` naming `where`. */
export const finite = (where: string, value: number): number => {
  if (typeof value === "number" && Number.isFinite(value)) return value === 0 ? 0 : value
  throw new HooklineError(invalidConfiguration(where, `expected a finite number, got ${excerpt(value, 60)}`))
}

/** `finite` for an optional field: `undefined` stays absent. */
export const finiteOptional = (where: string, value: number | undefined): number | undefined =>
  value === undefined ? undefined : finite(where, value)
