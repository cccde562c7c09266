// A valid context a hook returned, frozen through where it differs from its input.
// `deepFreeze` stops at anything already frozen, trusting that frozen data is deeply
// frozen; a hook may break that trust with a frozen shell built by hand
// (`Object.freeze({ ...ctx, state: Object.freeze({ ...ctx.state, metadata: { a: [] } }) })`),
// and the next hook, the loop and a store would then hold data anyone can change. So the
// context is walked as `contextCheck.ts` checks it, by its known shape, as a diff against
// the input (which is valid: the loop made it, or an earlier return passed here): a part
// that is the same reference is not looked at, a changed part is frozen, and what is new
// in it is walked whole, frozen or not; of a log only the items appended since (a log
// rewritten: all of them). Known fields only, with static names, so the walk of a hook
// that changed one field costs a few reads. Keys outside the data model under a frozen
// shell are not walked (nothing reads them; `deepFreeze` still freezes them under an
// unfrozen one, as before).
import * as AppendLog from "../AppendLog.js"
import type * as AgentState from "../AgentState.js"
import type { HookContext } from "../HookContext.js"
import type { InferenceRequest } from "../InferenceRequest.js"
import { deepFreeze } from "../internal/immer.js"

const isPlain = (value: object): boolean => {
  const proto: unknown = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

// A new part, whole: every object reachable, frozen ones included. Iterative: any depth
// is safe. A part of more than `small` objects is walked again with a set of the objects
// seen, so a cycle ends too; a small part (the usual: a signal, a metadata record) makes
// no set.
const small = 1_000

const all = (root: unknown): void => {
  if (typeof root === "object" && root !== null && !walk(root, undefined)) walk(root, new Set())
}

const walk = (root: object, seen: Set<object> | undefined): boolean => {
  const stack: Array<object> = [root]
  let visits = 0
  while (stack.length > 0) {
    const node = stack.pop() as object
    if (seen === undefined) {
      if (++visits > small) return false
    } else if (seen.has(node)) continue
    else seen.add(node)
    if (Array.isArray(node)) {
      if (!Object.isFrozen(node)) Object.freeze(node)
      for (let i = 0; i < node.length; i++) {
        const item: unknown = node[i]
        if (typeof item === "object" && item !== null) stack.push(item)
      }
    } else if (isPlain(node)) {
      if (!Object.isFrozen(node)) Object.freeze(node)
      for (const key of Object.keys(node)) {
        const item: unknown = (node as Record<string, unknown>)[key]
        if (typeof item === "object" && item !== null) stack.push(item)
      }
    } else if (AppendLog.isAppendLog(node)) {
      // A log froze itself; its items are walked.
      for (const item of node) if (typeof item === "object" && item !== null) stack.push(item)
    } else {
      // Maps, Sets and immerable classes: as `deepFreeze` treats them.
      deepFreeze(node)
    }
  }
  return true
}

const changed = (next: unknown, prev: unknown): void => {
  if (next !== prev) all(next)
}

// An array whose unchanged items keep their place (stop signals, errors, pending calls).
const array = (next: unknown, prev: unknown): void => {
  if (next === prev) return
  if (!Array.isArray(next)) return all(next)
  Object.freeze(next)
  const before = Array.isArray(prev) ? prev : undefined
  for (let i = 0; i < next.length; i++) if (next[i] !== before?.[i]) all(next[i])
}

// A log: its items past the input's, or all of them when it was rewritten.
const log = (next: unknown, prev: unknown): void => {
  if (next === prev) return
  if (!AppendLog.isAppendLog(next)) return all(next)
  const from = AppendLog.isAppendLog(prev) && next.extendsUnsafe(prev) ? prev.length : 0
  for (let i = from; i < next.length; i++) all(next.at(i))
}

const own = (node: object): void => {
  if (!Object.isFrozen(node)) Object.freeze(node)
}

type Fields = Readonly<Record<string, unknown>>

// One of the context's known objects, changed: frozen, and given back for its fields to
// be walked; not a plain object (contextCheck refused it, or a hook built it oddly):
// walked whole here.
const enter = (next: unknown, prev: unknown): Fields | undefined => {
  if (next === prev || typeof next !== "object" || next === null) return undefined
  if (!isPlain(next)) return void all(next)
  own(next)
  return next as Fields
}

const request = (next: unknown, p: InferenceRequest | undefined): void => {
  const n = enter(next, p)
  if (n === undefined) return
  log(n["messages"], p?.messages)
  array(n["tools"], p?.tools)
  changed(n["responseFormat"], p?.responseFormat)
  changed(n["options"], p?.options)
}

const context = (next: unknown, p: AgentState.AgentContext | undefined): void => {
  const n = enter(next, p)
  if (n === undefined) return
  log(n["messages"], p?.messages)
  changed(n["responseFormat"], p?.responseFormat)
  changed(n["metadata"], p?.metadata)
}

const execution = (next: unknown, p: AgentState.Execution | undefined): void => {
  const n = enter(next, p)
  if (n === undefined) return
  log(n["steps"], p?.steps)
  array(n["stopSignals"], p?.stopSignals)
  changed(n["usage"], p?.usage)
  array(n["errors"], p?.errors)
  changed(n["metadata"], p?.metadata)
  array(n["pendingCalls"], p?.pendingCalls)
  changed(n["suspendedStep"], p?.suspendedStep)
}

const state = (next: unknown, p: AgentState.AgentState | undefined): void => {
  const n = enter(next, p)
  if (n === undefined) return
  context(n["context"], p?.context)
  execution(n["execution"], p?.execution)
  changed(n["metadata"], p?.metadata)
}

/**
 * Freezes what `next` (a context that passed `contextCheck`'s check against `prev`)
 * holds that `prev` did not: its changed parts, frozen or not. The run context is the
 * caller's, shared as given, and never frozen.
 */
export const freezeChanged = (prev: HookContext, next: HookContext): void => {
  if (next === prev) return
  own(next)
  state(next.state, prev.state)
  request(next.request, prev.request)
  changed(next.response, prev.response)
  changed(next.toolCall, prev.toolCall)
  changed(next.toolExecution, prev.toolExecution)
  array(next.errors, prev.errors)
  changed(next.metadata, prev.metadata)
}
