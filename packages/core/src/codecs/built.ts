// The values core's own codecs built: decoded under the default bounds (or tighter ones),
// validated, rebuilt and frozen by core. Nothing outside this module adds to the set, and
// only a decode does, so being in it is proof of a check, not a mark anyone can set: a
// caller cannot forge a member, only decode one.
//
// A store folds a run's checkpoints into a state from parts it decoded with core's codecs
// (messages, steps, stop signals, errors, metadata, usage); `rememberBuilt` remembers such
// a state as checked when every part of it is one of these and its shells (the state, its
// context and its execution) are core's plain frozen records, so the agent's entry need
// not decode it a second time (docs/decisions.md, "A loaded state is not decoded twice").
import * as t from "io-ts"
import { isLeft } from "fp-ts/lib/Either.js"
import * as AppendLog from "../AppendLog.js"
import { emptyMetadata } from "../Json.js"
import { isProxy, plainProblem } from "../internal/plainData.js"
import { empty as emptyUsage } from "../Usage.js"
import { defaultLimits, limitsOf, type Codec } from "./combinators.js"
import { ExecutionStatus } from "./literals.js"

const built = new WeakSet<object>()

/** Whether `u` is a value core's codecs built (or a state `rememberBuilt` took). */
export const isBuilt = (u: unknown): boolean => typeof u === "object" && u !== null && built.has(u)

// A part decoded under looser bounds than the defaults is valid there, not at the entry.
const withinDefaults = (c: t.Context): boolean => {
  const limits = limitsOf(c)
  return limits === defaultLimits
    || (limits.maxItems <= defaultLimits.maxItems && limits.maxStringLength <= defaultLimits.maxStringLength)
}

/** `codec`, remembering every object its decode builds (under the default bounds). */
export const remembering = <A, O>(codec: Codec<A, O>): Codec<A, O> =>
  new t.Type<A, O, unknown>(
    codec.name,
    codec.is,
    (u, c) => {
      const result = codec.validate(u, c)
      if (!isLeft(result) && typeof result.right === "object" && result.right !== null && withinDefaults(c)) built.add(result.right)
      return result
    },
    codec.encode,
  )

const logPrototype: unknown = Object.getPrototypeOf(AppendLog.empty())

const stateKeys: ReadonlySet<string> = new Set(["id", "parentId", "context", "execution", "metadata"])
const contextKeys: ReadonlySet<string> = new Set(["systemPrompt", "responseFormat", "messages", "metadata"])
const executionKeys: ReadonlySet<string> = new Set([
  "status", "startedAt", "runningSince", "completedAt", "steps", "stopSignals", "continuationRequested", "usage", "errors",
  "stopReason", "metadata", "pendingCalls", "suspendedStep",
])

// Frozen plain data by core's one rule (`plainProblem`: no Proxy, no accessor, no hidden
// property, a plain prototype), no symbol key; where a Proxy cannot be told, nothing is.
const isFrozenPlain = (u: object): boolean =>
  isProxy !== undefined && Object.isFrozen(u) && plainProblem(u) === undefined && Object.getOwnPropertySymbols(u).length === 0

// A record core's constructors made: frozen plain data of Object.prototype with only
// known keys. Its fields (data properties, so each read answers as the check), or undefined.
const shell = (u: unknown, keys: ReadonlySet<string>): Readonly<Record<string, unknown>> | undefined => {
  if (typeof u !== "object" || u === null || Object.getPrototypeOf(u) !== Object.prototype || !isFrozenPlain(u)) return undefined
  for (const key of Object.keys(u)) if (!keys.has(key)) return undefined
  return u as Readonly<Record<string, unknown>>
}

const isText = (u: unknown): boolean => typeof u === "string" && u.length <= defaultLimits.maxStringLength
const isOptionalText = (u: unknown): boolean => u === undefined || isText(u)
const isOptionalTime = (u: unknown): boolean => u === undefined || (typeof u === "number" && Number.isFinite(u))
const isMetadata = (u: unknown): boolean => u === emptyMetadata || isBuilt(u)

// A frozen plain array of built items, within the item bound, with no hole and no key but
// its indices and length.
const isBuiltArray = (u: unknown): boolean => {
  if (!Array.isArray(u) || u.length > defaultLimits.maxItems || !isFrozenPlain(u)) return false
  if (Object.getOwnPropertyNames(u).length !== u.length + 1) return false
  for (let i = 0; i < u.length; i++) if (!Object.hasOwn(u, i) || !isBuilt(u[i])) return false
  return true
}

// One of core's own logs (never a subclass or a Proxy) of built items, within the bound.
const isBuiltLog = (u: unknown): boolean => {
  if (typeof u !== "object" || u === null || isProxy === undefined || isProxy(u) || Object.getPrototypeOf(u) !== logPrototype) return false
  const log = u as AppendLog.AppendLog<unknown>
  if (log.length > defaultLimits.maxItems) return false
  // Its frozen array, made once per log (the log's own iterator is a generator).
  const items = log.toArray()
  if (items.length !== log.length) return false
  for (let i = 0; i < items.length; i++) if (!built.has(items[i] as object)) return false
  return true
}

/**
 * `state`, remembered as checked when it is made only of parts core's codecs built
 * (`isBuilt`) in core's own frozen records, within the bounds `Codecs.AgentState` holds
 * a state to: what that codec would accept and keep as it is. Anything else is given
 * back as it is, not remembered (its checker decodes it). Never throws on a frozen
 * value; reads each field once.
 */
export const rememberBuilt = <A>(state: A): A => {
  try {
    if (built.has(state as object)) return state
    const s = shell(state, stateKeys)
    if (s === undefined || !isText(s["id"]) || !isOptionalText(s["parentId"]) || !isMetadata(s["metadata"])) return state
    const c = shell(s["context"], contextKeys)
    if (c === undefined || !isText(c["systemPrompt"]) || !isMetadata(c["metadata"])) return state
    if (c["responseFormat"] !== undefined && !isBuilt(c["responseFormat"])) return state
    const e = shell(s["execution"], executionKeys)
    if (e === undefined || !ExecutionStatus.is(e["status"]) || typeof e["continuationRequested"] !== "boolean") return state
    if (!isOptionalTime(e["startedAt"]) || !isOptionalTime(e["runningSince"]) || !isOptionalTime(e["completedAt"])) return state
    if (!isOptionalText(e["stopReason"]) || !isMetadata(e["metadata"])) return state
    if (e["usage"] !== emptyUsage && !isBuilt(e["usage"])) return state
    if (!isBuiltArray(e["stopSignals"]) || !isBuiltArray(e["errors"])) return state
    if (e["pendingCalls"] !== undefined && !isBuiltArray(e["pendingCalls"])) return state
    if (e["suspendedStep"] !== undefined && !isBuilt(e["suspendedStep"])) return state
    // The logs last: the only parts whose check grows with the history.
    if (!isBuiltLog(c["messages"]) || !isBuiltLog(e["steps"])) return state
    built.add(state as object)
  } catch {
    // A hostile value: not remembered.
  }
  return state
}
