// A generator class for custom interceptors that return bad values (branch hooktrust):
// a custom interceptor (`{ intercept, interceptSync? }`, maybe around a stack) that, at
// one generated dispatch, returns something forged in place of the context it should:
// not a context, a context of another trigger or run, an invalid part, a hand-built
// valid context with mutable parts, a frozen shell over them. The oracle: the run ends
// normally (it resolves, AfterExecution once); a bad return is the dispatch's
// `HookFailed{ hook: "interceptor" }` naming what was wrong, and nothing of it is kept;
// a valid one is kept frozen through; no state a hook or the caller sees holds anything
// mutable, and the final state loads back. A second class throws instead of returning
// (an Error, a string, `undefined`; on the Effect path the Effect dies with it, or fails
// with something that is not a HookFailed): the same oracle, the failure naming what
// was thrown (branch hooktrust2).
import { Effect } from "effect"
import fc from "fast-check"
import * as t from "io-ts"
import {
  AgentState,
  Codecs,
  HookContext,
  HookStack,
  HookTriggers,
  Interceptor,
  Json,
  Message,
  StopSignal,
  type AgentError,
  type HookTrigger,
} from "@hookline/core"
import { AgentLoop, Driver, Tool } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { unfrozenPath } from "../support.js"
import { unansweredCalls } from "./properties.js"

/** What the interceptor returns at the forged dispatch. */
export type ForgeKind =
  | "number"
  | "null"
  | "undefinedEffect"
  | "stateNull"
  | "messagesArray"
  | "otherTrigger"
  | "otherRun"
  | "badMetadata"
  | "badStopSignal"
  | "objectCreate"
  | "unfrozenValid"
  | "frozenShell"
  | "throwError"
  | "throwString"
  | "throwUndefined"
  | "failPlain"
  | "getter"
  | "indexGetter"
  | "proxyPart"
  | "hiddenPart"
  | "oddArray"
  | "longPrompt"
  | "longParentId"

/** The kinds the loop refuses, each with a fragment of the message that names it. */
export const refused: Readonly<Partial<Record<ForgeKind, string>>> = {
  number: "returned something that is not a HookContext",
  null: "returned something that is not a HookContext",
  // `interceptSync` returning `undefined` means "ask `intercept`": this kind forges on the Effect path only.
  undefinedEffect: "returned undefined",
  stateNull: "at state: expected an AgentState, got null",
  messagesArray: "at state.context.messages: expected an AppendLog",
  otherTrigger: "changed the trigger",
  otherRun: "at state.id: a hook cannot change the run's id",
  badMetadata: "at state.metadata.when",
  badStopSignal: "at state.execution.stopSignals",
  objectCreate: "not a plain object",
  // Thrown (on the Effect path: the Effect dies with it).
  throwError: "fuzz: a thrown Error",
  throwString: "fuzz: a thrown string",
  throwUndefined: ": undefined",
  // The Effect fails with a string, not a HookFailed: on the Effect path only.
  failPlain: "fuzz: a failure that is not a HookFailed",
  // Not plain data in what changed (branch plaindata): refused, as at the agent's entry.
  getter: "at state.metadata: holds an accessor",
  indexGetter: "at state.execution.stopSignals: holds an accessor",
  proxyPart: "at state.metadata: holds a Proxy",
  hiddenPart: "at state.execution: holds a hidden (non-enumerable) property",
  oddArray: "at state.execution.stopSignals: holds an array whose prototype",
  // Strings past Json.maxStringLength (branch plaindata).
  longPrompt: "at state.context.systemPrompt: a string of",
  longParentId: "at state.parentId: a string of",
}

export const forgeKinds = Object.keys({ ...refused, unfrozenValid: 1, frozenShell: 1 }) as ReadonlyArray<ForgeKind>

const otherRun = AgentState.make({ id: "fuzz:another-run", messages: [Message.user("hi")] })

// What a `failPlain` forge raises, for the Effect path to fail with its value.
class Failing {
  constructor(readonly value: unknown) {}
}

const forge = (kind: ForgeKind, ctx: HookContext): unknown => {
  switch (kind) {
    case "throwError":
      throw new Error("fuzz: a thrown Error")
    case "throwString":
      throw "fuzz: a thrown string"
    case "throwUndefined":
      throw undefined
    case "failPlain":
      throw new Failing("fuzz: a failure that is not a HookFailed")
    case "number":
      return 42
    case "null":
      return null
    case "undefinedEffect":
      return undefined
    case "stateNull":
      return { ...ctx, state: null }
    case "messagesArray":
      return { ...ctx, state: { ...ctx.state, context: { ...ctx.state.context, messages: ctx.state.context.messages.toArray() } } }
    case "otherTrigger":
      return HookContext.make({ trigger: ctx.trigger === "AfterStep" ? "BeforeStep" : "AfterStep", state: ctx.state, createdAt: ctx.createdAt })
    case "otherRun":
      return HookContext.withState(ctx, otherRun)
    case "badMetadata":
      return { ...ctx, state: { ...ctx.state, metadata: { when: new Date(0), forged: true } } }
    case "badStopSignal":
      return { ...ctx, state: { ...ctx.state, execution: { ...ctx.state.execution, stopSignals: [{ reason: "Bored", message: "", source: "forged" }] } } }
    case "objectCreate":
      return Object.create(ctx)
    case "unfrozenValid":
      return { ...ctx, state: { ...ctx.state, metadata: { ...ctx.state.metadata, forged: ["kept"] } } }
    case "getter":
      return { ...ctx, state: { ...ctx.state, metadata: Object.defineProperty({ ...ctx.state.metadata }, "forged", { get: () => ["kept"], enumerable: true }) } }
    case "indexGetter": {
      const signal = StopSignal.make("StopRequested", "forged", "fuzz")
      const signals = Object.defineProperty([...ctx.state.execution.stopSignals, signal], ctx.state.execution.stopSignals.length, { get: () => signal, enumerable: true })
      return { ...ctx, state: { ...ctx.state, execution: { ...ctx.state.execution, stopSignals: signals } } }
    }
    case "proxyPart":
      return { ...ctx, state: { ...ctx.state, metadata: new Proxy(Object.freeze({ ...ctx.state.metadata, forged: 1 }), {}) } }
    case "hiddenPart":
      return { ...ctx, state: { ...ctx.state, execution: Object.defineProperty({ ...ctx.state.execution }, "forged", { value: "x".repeat(1000), enumerable: false }) } }
    case "oddArray":
      return { ...ctx, state: { ...ctx.state, execution: { ...ctx.state.execution, stopSignals: Object.setPrototypeOf([...ctx.state.execution.stopSignals], Object.create(Array.prototype) as object) as unknown } } }
    case "longPrompt":
      return { ...ctx, state: { ...ctx.state, context: { ...ctx.state.context, systemPrompt: "x".repeat(Json.maxStringLength + 1) } } }
    case "longParentId":
      return { ...ctx, state: { ...ctx.state, parentId: "x".repeat(Json.maxStringLength + 1) } }
    case "frozenShell":
      return Object.freeze({ ...ctx, state: Object.freeze({ ...ctx.state, metadata: { ...ctx.state.metadata, forged: ["kept"] } }) })
  }
}

export interface InterceptorCase {
  readonly kind: ForgeKind
  /** Which path answers: `interceptSync` (falling back on `intercept` for nothing), or `intercept` only. */
  readonly path: "sync" | "effect"
  /** The forged dispatch: the n-th the interceptor sees (past the run's last: none is forged). */
  readonly at: number
  /** The model's turns: how many calls each tool step makes, then a text answer. */
  readonly steps: ReadonlyArray<number>
  /** Whether the interceptor runs a stack around the loop (`Interceptor.around`), with an OnError hook that handles errors. */
  readonly around: "none" | "stack" | "handling"
}

export const interceptorCase: fc.Arbitrary<InterceptorCase> = fc.record({
  kind: fc.constantFrom(...forgeKinds),
  path: fc.constantFrom("sync" as const, "effect" as const),
  at: fc.nat({ max: 24 }),
  steps: fc.array(fc.integer({ min: 1, max: 2 }), { maxLength: 2 }),
  around: fc.constantFrom("none" as const, "stack" as const, "handling" as const),
}).map((c) => (c.kind === "undefinedEffect" || c.kind === "failPlain" ? { ...c, path: "effect" as const } : c))

const echo = Tool.make({ name: "echo", description: "Echoes", parameters: t.type({ text: t.string }), execute: ({ text }) => text })

// Marks errors handled at OnError: the run goes on after a refused return (the next step retries).
const handling = HookStack.with(HookStack.empty, (ctx: HookContext) => HookContext.markErrorsHandled(ctx), {
  triggers: HookTriggers.of("OnError"),
  name: "fuzz:handle",
})

export interface InterceptorRecording {
  readonly final: AgentState | undefined
  readonly rejected: unknown
  /** The trigger of each dispatch the interceptor saw, and the state it was given. */
  readonly seen: ReadonlyArray<{ readonly trigger: HookTrigger; readonly state: AgentState }>
  /** The trigger of the forged dispatch, if the run reached it. */
  readonly forgedAt: HookTrigger | undefined
}

export const runInterceptorCase = async (c: InterceptorCase): Promise<InterceptorRecording> => {
  const seen: Array<{ trigger: HookTrigger; state: AgentState }> = []
  let n = 0
  let forgedAt: HookTrigger | undefined
  const stack = c.around === "handling" ? handling : HookStack.empty
  const answer = (ctx: HookContext, out: HookContext): HookContext => {
    seen.push({ trigger: ctx.trigger, state: ctx.state })
    if (n++ !== c.at) return out
    forgedAt = ctx.trigger
    return forge(c.kind, out) as HookContext
  }
  const base: Interceptor = c.around === "none" ? Interceptor.PassThroughInterceptor : Interceptor.around(stack, (ctx, next) => next(ctx))
  const interceptor: Interceptor = c.path === "sync"
    ? {
      intercept: base.intercept,
      interceptSync: (ctx, env) => {
        const out = c.around === "none" ? ctx : stack.interceptSync(ctx, env)
        return out === undefined ? undefined : answer(ctx, out)
      },
      wrapsFrom: base.wrapsFrom,
    }
    : {
      intercept: (ctx) =>
        Effect.flatMap(base.intercept(ctx), (out) => {
          try {
            return Effect.succeed(answer(ctx, out))
          } catch (thrown) {
            return thrown instanceof Failing ? (Effect.fail(thrown.value) as never) : Effect.die(thrown)
          }
        }),
      wrapsFrom: base.wrapsFrom,
    }
  const turns = [
    ...c.steps.map((calls, i) => ScriptedDriver.toolCalls(Array.from({ length: calls }, (_, k) => ({ id: `c${i}-${k}`, name: "echo", arguments: { text: `t${k}` } })))),
    ScriptedDriver.text("done"),
  ]
  // Retries after a handled error ask the model again: the last answer repeats.
  const driver = ScriptedDriver.make(turns, { repeatLast: true })
  const loop = AgentLoop.make({ interceptor, tools: [echo], maxSteps: 8 })
  try {
    const final = await Effect.runPromise(AgentLoop.run(loop, "go").pipe(Effect.provideService(Driver.Driver, driver)))
    return { final, rejected: undefined, seen, forgedAt }
  } catch (rejected) {
    return { final: undefined, rejected, seen, forgedAt }
  }
}

/** What the recording breaks of the oracle (empty: nothing). */
export const interceptorViolations = (c: InterceptorCase, r: InterceptorRecording): ReadonlyArray<string> => {
  const v: Array<string> = []
  const final = r.final
  if (final === undefined) return [`the run rejected: ${String(r.rejected)}`]
  const afterExecution = r.seen.filter((s) => s.trigger === "AfterExecution").length
  if (afterExecution !== 1) v.push(`AfterExecution ran ${afterExecution} times`)
  for (const [i, s] of r.seen.entries()) {
    const path = unfrozenPath(s.state)
    if (path !== undefined) v.push(`dispatch ${i} (${s.trigger}) was given a state with ${path} not frozen`)
  }
  const path = unfrozenPath(final)
  if (path !== undefined) v.push(`the final state has ${path} not frozen`)
  if (final.id === otherRun.id) v.push("the final state is another run's")
  if (unansweredCalls(final.context.messages.toArray()).length > 0) v.push("a call was left without an answer")
  const text = Codecs.stringifyState(final)
  if (Codecs.stringifyState(Codecs.parseStateUnsafe(text)) !== text) v.push("the final state does not load back as it is")
  const failures = final.execution.errors.filter((e): e is AgentError.HookFailed => e._tag === "HookFailed" && e.hook === "interceptor")
  const expected = refused[c.kind]
  if (r.forgedAt === undefined) {
    if (failures.length > 0) v.push(`nothing was forged, yet: ${failures[0]?.message}`)
    return v
  }
  if (expected === undefined) {
    // A valid return: kept, frozen through, and no failure.
    if (failures.length > 0) v.push(`a valid return was refused: ${failures[0]?.message}`)
    return v
  }
  const failure = failures[0]
  if (failure === undefined) v.push(`the forged ${c.kind} at ${r.forgedAt} was not refused`)
  else {
    if (failure.trigger !== r.forgedAt) v.push(`the refusal names ${failure.trigger}, the forge was at ${r.forgedAt}`)
    if (!failure.message.includes(expected)) v.push(`the refusal does not say "${expected}": ${failure.message}`)
  }
  if (text.includes("fuzz:another-run") || text.includes("\"forged\"") || text.includes("Bored")) v.push("something forged was kept")
  // A refused return ends the run failed, unless an OnError hook handled it, or the
  // dispatch is one whose failure is only reported (OnStop, OnError, AfterExecution).
  const ends = c.around !== "handling" && r.forgedAt !== "OnStop" && r.forgedAt !== "OnError" && r.forgedAt !== "AfterExecution"
  if (ends && final.execution.status !== "failed") v.push(`the run ended ${final.execution.status}, not failed`)
  return v
}
