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
//
// The same walk holds what changed to the rule the agent's entry holds a caller's state
// to (internal/plainData.ts): no Proxy, no accessor, no hidden property, no prototype but
// a plain object's or an array's (core's logs aside), the changed shells included. Such a
// part is refused (the hook fails), not copied: a hook returns plain data.
import * as AppendLog from "../AppendLog.js"
import type * as AgentState from "../AgentState.js"
import type { HookContext } from "../HookContext.js"
import type { InferenceRequest } from "../InferenceRequest.js"
import { isProxy, plainProblem } from "../internal/plainData.js"

type Problem = string | undefined

// Core's own log (not a Proxy passing for one): immutable, it froze itself.
const logPrototype: unknown = Object.getPrototypeOf(AppendLog.empty())
const isLog = (node: object): node is AppendLog.AppendLog<unknown> => !(isProxy?.(node) ?? false) && Object.getPrototypeOf(node) === logPrototype

const at = (where: string, what: string): string => `${where}: holds ${what}; a hook returns plain data`

// A new part, whole: every object reachable, frozen ones included. Iterative: any depth
// is safe. A part of more than `small` objects is walked again with a set of the objects
// seen, so a cycle ends too; a small part (the usual: a signal, a metadata record) makes
// no set.
const small = 1_000

const all = (where: string, root: unknown): Problem => {
  if (typeof root !== "object" || root === null) return undefined
  const first = walk(root, undefined)
  const problem = first === false ? walk(root, new Set()) : first
  return typeof problem === "string" ? at(where, problem) : undefined
}

// `true` when walked, `false` past `small` objects without a set, or what is not plain.
const walk = (root: object, seen: Set<object> | undefined): boolean | string => {
  const stack: Array<object> = [root]
  let visits = 0
  while (stack.length > 0) {
    const node = stack.pop() as object
    if (seen === undefined) {
      if (++visits > small) return false
    } else if (seen.has(node)) continue
    else seen.add(node)
    if (isLog(node)) {
      // A log froze itself; its items are walked.
      for (const item of node) if (typeof item === "object" && item !== null) stack.push(item)
      continue
    }
    const problem = plainProblem(node)
    if (problem !== undefined) return problem
    if (!Object.isFrozen(node)) Object.freeze(node)
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const item: unknown = node[i]
        if (typeof item === "object" && item !== null) stack.push(item)
      }
    } else {
      // Every own property is an enumerable value (checked above): `for…in` lists them
      // without allocating (an inherited key is not the node's).
      for (const key in node) {
        if (!Object.hasOwn(node, key)) continue
        const item: unknown = (node as Record<string, unknown>)[key]
        if (typeof item === "object" && item !== null) stack.push(item)
      }
    }
  }
  return true
}

const changed = (where: string, next: unknown, prev: unknown): Problem => (next === prev ? undefined : all(where, next))

// An array whose unchanged items keep their place (stop signals, errors, pending calls).
const array = (where: string, next: unknown, prev: unknown): Problem => {
  if (next === prev) return undefined
  if (!Array.isArray(next)) return all(where, next)
  const problem = plainProblem(next)
  if (problem !== undefined) return at(where, problem)
  Object.freeze(next)
  const before = Array.isArray(prev) ? prev : undefined
  for (let i = 0; i < next.length; i++) {
    if (next[i] === before?.[i]) continue
    const itemProblem = all(`${where}[${i}]`, next[i])
    if (itemProblem !== undefined) return itemProblem
  }
  return undefined
}

// A log: its items past the input's, or all of them when it was rewritten.
const log = (where: string, next: unknown, prev: unknown): Problem => {
  if (next === prev) return undefined
  if (!AppendLog.isAppendLog(next)) return all(where, next)
  const from = AppendLog.isAppendLog(prev) && next.extendsUnsafe(prev) ? prev.length : 0
  for (let i = from; i < next.length; i++) {
    const problem = all(`${where}[${i}]`, next.at(i))
    if (problem !== undefined) return problem
  }
  return undefined
}

type Fields = Readonly<Record<string, unknown>>

// One of the context's known objects, changed: held to the rule, frozen, and given back
// for its fields to be walked (a string: what is wrong with it).
const enter = (where: string, next: unknown, prev: unknown): Fields | string | undefined => {
  if (next === prev || typeof next !== "object" || next === null) return undefined
  const problem = plainProblem(next)
  if (problem !== undefined) return at(where, problem)
  if (!Object.isFrozen(next)) Object.freeze(next)
  return next as Fields
}

const request = (next: unknown, p: InferenceRequest | undefined): Problem => {
  const n = enter("request", next, p)
  if (n === undefined || typeof n === "string") return n
  return log("request.messages", n["messages"], p?.messages)
    ?? array("request.tools", n["tools"], p?.tools)
    ?? changed("request.responseFormat", n["responseFormat"], p?.responseFormat)
    ?? changed("request.options", n["options"], p?.options)
}

const context = (next: unknown, p: AgentState.AgentContext | undefined): Problem => {
  const n = enter("state.context", next, p)
  if (n === undefined || typeof n === "string") return n
  return log("state.context.messages", n["messages"], p?.messages)
    ?? changed("state.context.responseFormat", n["responseFormat"], p?.responseFormat)
    ?? changed("state.context.metadata", n["metadata"], p?.metadata)
}

const execution = (next: unknown, p: AgentState.Execution | undefined): Problem => {
  const n = enter("state.execution", next, p)
  if (n === undefined || typeof n === "string") return n
  return log("state.execution.steps", n["steps"], p?.steps)
    ?? array("state.execution.stopSignals", n["stopSignals"], p?.stopSignals)
    ?? changed("state.execution.usage", n["usage"], p?.usage)
    ?? array("state.execution.errors", n["errors"], p?.errors)
    ?? changed("state.execution.metadata", n["metadata"], p?.metadata)
    ?? array("state.execution.pendingCalls", n["pendingCalls"], p?.pendingCalls)
    ?? changed("state.execution.suspendedStep", n["suspendedStep"], p?.suspendedStep)
}

const state = (next: unknown, p: AgentState.AgentState | undefined): Problem => {
  const n = enter("state", next, p)
  if (n === undefined || typeof n === "string") return n
  return context(n["context"], p?.context)
    ?? execution(n["execution"], p?.execution)
    ?? changed("state.metadata", n["metadata"], p?.metadata)
}

/**
 * Freezes what `next` (a context that passed `contextCheck`'s check against `prev`)
 * holds that `prev` did not: its changed parts, frozen or not; what is wrong with one
 * (not plain data, internal/plainData.ts), or `undefined`. The run context is the
 * caller's, shared as given, and never frozen or walked.
 */
export const freezeChanged = (prev: HookContext, next: HookContext): Problem => {
  if (next === prev) return undefined
  const shell = enter("the context", next, prev)
  if (typeof shell === "string") return shell
  return state(next.state, prev.state)
    ?? request(next.request, prev.request)
    ?? changed("response", next.response, prev.response)
    ?? changed("toolCall", next.toolCall, prev.toolCall)
    ?? changed("toolExecution", next.toolExecution, prev.toolExecution)
    ?? array("errors", next.errors, prev.errors)
    ?? changed("metadata", next.metadata, prev.metadata)
}
