// The state a caller hands a run (`agent.run(state)`, `AgentLoop.run(loop, state)`,
// `stream`, `iterate`, `resume(state)`, `continue(state, …)`), or a loader gives a
// resume: untrusted, as any input. It is checked where it enters with core's codec
// (`Codecs.AgentState`: every part against its codec, bounded in items and depth, never
// throwing on a proxy or a getter). A valid state that is frozen all through is kept as
// it is (nothing can change it; a store knows the states it loaded by identity); any
// other valid state is replaced by the codec's deeply frozen copy, so hooks, stores and
// the result never hold the caller's mutable objects. A state checked here before, or
// a run's final state (the loop made it from checked parts), is known and not checked
// again: running one seed state many times, or resuming a run's result, costs a WeakSet
// look-up. A frozen state holding a key the codec does not know is not kept: the
// codec's copy, without it, is taken. A state core's codecs built (`Codecs.isBuilt`:
// decoded, or a store's fold of decoded parts that core took as one,
// `Codecs.rememberBuilt`) is not decoded again; nor is one core's check without a copy
// vouches is its decode's own answer (`Codecs.decodesToItself`: valid under the same
// bounds, frozen plain data, only known keys, nothing the decode would change).
import { AgentError, AgentState, AppendLog, Codecs, Json, Message } from "@hookline/core"
import { Result } from "effect"

const known = new WeakSet<object>()

/** Marks a state this package made from checked parts (a run's result, a child's first state). */
export const vouch = (state: AgentState): AgentState => {
  known.add(state)
  return state
}

/** The state of a run from a prompt: its one user message. */
export const fromPrompt = (prompt: string): AgentState => AgentState.make({ messages: [Message.user(prompt)] })

// A Proxy over a frozen target may answer a later read of a key it lacks (`parentId`)
// otherwise than it answered the codec: never kept as it is (`Json.isProxy`; where it is
// missing, no state is kept as it is: each is the codec's copy).
const isProxy = Json.isProxy

const logPrototype: unknown = Object.getPrototypeOf(AppendLog.empty())

// Whether every object under `root` (a value the codec accepted) is frozen plain data
// that answers every later read as it answered the codec's, with no key the codec does
// not know: no Proxy, no accessor (own or inherited: only plain objects, arrays and
// core's own logs), every own property an enumerable value (a hidden one is read by the
// codec, and left out of the JSON a store writes), the rule core holds a hook's return
// to (`Json.plainProblem`); and every key with a value is one the codec's copy `copy`
// has at the same place (an unknown key is never checked: a 100 MB string, anything).
// Walked in pairs with the copy; iterative, and bounded by what the codec accepted.
const frozenThrough = (root: object, copy: object): boolean => {
  if (isProxy === undefined) return false
  // Pairs: a node, then its twin in the copy.
  const stack: Array<object> = [root, copy]
  while (stack.length > 0) {
    const twin = stack.pop() as Record<string, unknown>
    const node = stack.pop() as Record<string, unknown>
    if (isProxy(node) || !Object.isFrozen(node)) return false
    if (Object.getPrototypeOf(node) === logPrototype) {
      const log = node as unknown as AppendLog.AppendLog<unknown>
      const twins = twin as unknown as AppendLog.AppendLog<unknown>
      if (!AppendLog.isAppendLog(twins) || twins.length !== log.length) return false
      for (let i = 0; i < log.length; i++) {
        const item = log.at(i)
        if (typeof item !== "object" || item === null) continue
        const other = twins.at(i)
        if (typeof other !== "object" || other === null) return false
        stack.push(item, other)
      }
      continue
    }
    if (Json.plainProblem(node) !== undefined) return false
    for (const key in node) {
      // Own and plain (checked above): a data property; an inherited key is not the state's.
      if (!Object.hasOwn(node, key)) continue
      const item = node[key]
      if (item === undefined) continue
      if (twin === node) {
        // The codec's own answer is the node itself (a JSON value): its keys are all known.
        if (typeof item === "object" && item !== null) stack.push(item, item)
        continue
      }
      if (!Object.hasOwn(twin, key)) return false
      if (typeof item === "object" && item !== null) {
        const other = twin[key]
        if (typeof other !== "object" || other === null) return false
        stack.push(item, other)
      }
    }
  }
  return true
}

// The codec's path, within the input: `input.context.messages[0].role`.
const at = (where: string, failure: AgentError.DecodeFailed): AgentError.DecodeFailed => {
  const path = failure.path === "" ? where : `${where}.${failure.path}`
  const prefix = `cannot decode ${failure.path === "" ? "the root" : failure.path}: `
  const detail = failure.message.startsWith(prefix) ? failure.message.slice(prefix.length) : failure.message
  return AgentError.decodeFailed(path, detail)
}

/**
 * The state a run may start from: `input` when it is known, or valid and frozen all
 * through, else the codec's deeply frozen copy; a failed `Result` with `DecodeFailed` at
 * `<where>.<path>` naming the first bad part. (Only a failure allocates a `Result`: a
 * run's entry is on every run's path.)
 */
export const check = (input: unknown, where = "input"): AgentState | Result.Failure<never, AgentError.DecodeFailed> => {
  if (typeof input === "object" && input !== null && known.has(input)) return input as AgentState
  // Built by core's codecs (a decoded state, or a store's fold of decoded parts that core
  // took as such): valid, bounded and frozen all through; only core can say so.
  if (Codecs.isBuilt(input)) {
    known.add(input as object)
    return input as AgentState
  }
  // Valid, frozen plain data all through, and already what the decode would answer:
  // kept without building the decode's copy (a full copy of the history, dropped at
  // once). One walk; anything it does not vouch for is decoded and walked as below.
  if (Codecs.decodesToItself(input)) {
    known.add(input as object)
    return input as AgentState
  }
  const decoded = Codecs.decode(Codecs.AgentState, input)
  if (Result.isFailure(decoded)) return Result.fail(at(where, decoded.failure)) as Result.Failure<never, AgentError.DecodeFailed>
  const state = frozenThrough(input as object, decoded.success) ? input as AgentState : decoded.success
  known.add(state)
  return state
}
