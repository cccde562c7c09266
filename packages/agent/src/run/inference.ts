// The model call of a step: plain, streamed, or held by the WrapInference hooks (each
// call of the innermost `next` one attempt, recorded in the step), and the TextDelta /
// ReasoningDelta / TextReset protocol of the text and reasoning it streams.
import { AgentError, HookContext, HookStack, type InferenceRequest, type InferenceResponse, Step, type WrapHook } from "@hookline/core"
import { Cause, Effect, Exit } from "effect"
import type { AgentEvent } from "../AgentEvent.js"
import * as Driver_ from "../Driver.js"
import { generateChecked, streamChecked } from "../Driver.js"
import type { DriverShape } from "../internal/driverContract.js"
import * as DerivedStream from "../internal/derivedStream.js"
import type { RunCell } from "./cell.js"
import { abortSeen } from "./cell.js"
import { point } from "./records.js"
import type { AttemptRecord, OpenStep, RunEnv, StepDispatched } from "./types.js"

// What an interrupted model call ends with, unless the wrap hook that cut it says why.
const interrupted = (): AgentError.InferenceFailed => AgentError.inferenceFailed("the model call was interrupted before it answered")

// A wrap hook that cut calls short ended (`HookStack` env.onCut): with the call's error
// (a timeout's), which is then why those attempts ended; with a result, they keep the
// interruption.
const cutBy = (attempts: Array<AttemptRecord>, ended: Exit.Exit<unknown, unknown>): void => {
  const error = Exit.isFailure(ended) ? ended.cause.reasons.find(Cause.isFailReason)?.error as AgentError.InferenceFailed | undefined : undefined
  for (let i = 0; i < attempts.length; i++) {
    const a = attempts[i] as AttemptRecord
    if (a.cut && a.open !== true) attempts[i] = { attempt: error === undefined ? a.attempt : Step.inferenceAttempt({ ...a.attempt, error }), response: undefined, cut: false }
  }
}

const isDriver = (u: unknown): u is DriverShape =>
  typeof u === "object" && u !== null && typeof (u as DriverShape).generate === "function"
  && typeof (u as DriverShape).stream === "function"

/**
 * Every answer is checked at this boundary (Driver.generateChecked/streamChecked):
 * garbage, a throw or a defect of the driver is InferenceFailed, like a failed call.
 * `emitsDerived` false: a stream derived from generate emits its delta through
 * `derivedAnswered`, called by the caller once it answers (the step's plain call: no
 * Effect per call for it).
 */
export const callDriver = <R>(
  env: RunEnv<R>,
  cell: RunCell,
  request: InferenceRequest,
  index: number,
  driver: DriverShape = env.driver,
  emitsDerived = true,
): Effect.Effect<InferenceResponse, AgentError.InferenceFailed> => {
  const options = env.callOptions
  if (!env.streaming) return generateChecked(driver, request, options)
  // Checked text is emitted after the AfterInference hooks, not as it streams.
  const emit = env.config.textCheck !== undefined ? undefined : env.emit
  // A stream derived from generate: the same call and the same delta, with no stream built.
  // (The generate the stream calls: a driver spread with another generate keeps its stream's.)
  const generate = DerivedStream.generateOf(driver.stream)
  if (generate !== undefined) {
    const answer = generateChecked(generate === driver.generate ? driver : { generate, stream: driver.stream }, request, options)
    if (emit === undefined || !emitsDerived) return answer
    return Effect.map(answer, (response) => emitAnswer(emit, cell, index, response))
  }
  let streamed = false
  const onText = emit === undefined ? undefined : (text: string) => {
    streamed = cell.textStreamed = true
    emit({ _tag: "TextDelta", step: index, text })
  }
  const onReasoning = emit === undefined ? undefined : (text: string) => {
    streamed = cell.textStreamed = true
    emit({ _tag: "ReasoningDelta", step: index, text })
  }
  return streamChecked(driver, request, options, onText, onReasoning).pipe(
    // The consumer drops the text of an attempt that failed after streaming some.
    Effect.tapError(() => Effect.sync(() => streamed && resetText(env, cell, index))),
  )
}

/**
 * After `callDriver(..., emitsDerived = false)` answered: the delta a stream derived
 * from generate would have streamed, emitted as `callDriver` would have at that moment.
 */
export const derivedAnswered = <R>(env: RunEnv<R>, cell: RunCell, index: number, response: InferenceResponse): void => {
  const emit = env.emit
  if (!env.streaming || emit === undefined || env.config.textCheck !== undefined) return
  if (DerivedStream.generateOf(env.driver.stream) !== undefined) emitAnswer(emit, cell, index, response)
}

// A derived stream's one delta: the reasoning, then the text.
const emitAnswer = (emit: (event: AgentEvent) => void, cell: RunCell, index: number, response: InferenceResponse): InferenceResponse => {
  if (response.reasoning !== undefined) {
    cell.textStreamed = true
    emit({ _tag: "ReasoningDelta", step: index, text: response.reasoning })
  }
  if (response.text !== "") {
    cell.textStreamed = true
    emit({ _tag: "TextDelta", step: index, text: response.text })
  }
  return response
}

const resetText = <R>(env: RunEnv<R>, cell: RunCell, index: number): void => {
  if (!cell.textStreamed) return
  cell.textStreamed = false
  env.emit?.({ _tag: "TextReset", step: index })
}

/**
 * The model call held by the WrapInference hooks: each call of the innermost `next`
 * is one attempt, recorded in the step (the failed ones too, with what they cost).
 */
export const wrappedCall = <R>(
  env: RunEnv<R>,
  cell: RunCell,
  stack: HookStack.HookStack<R>,
  before: StepDispatched,
  request: InferenceRequest,
  index: number,
  open: OpenStep,
): Effect.Effect<InferenceResponse, AgentError.InferenceFailed | AgentError.HookFailed, R> => {
  const ctx = HookContext.isHookContext(before) && before.request === request
    ? before
    : HookContext.make({ ...point("BeforeInference", cell.state, cell.at(), request), runContext: env.runContext })
  const attempts: Array<AttemptRecord> = (open.attempts = [])
  cell.textStreamed = false
  const call = (c: HookContext, options: WrapHook.CallOptions | undefined) => {
    const driver = options?.model === undefined ? env.driver : options.model
    if (!isDriver(driver)) return Effect.die(new Error("next was given a model that is not a driver (generate and stream)"))
    // Aborted: no new attempt starts, whatever a wrap hook asks.
    if (abortSeen(cell)) return Effect.fail(AgentError.inferenceFailed("the model call was aborted"))
    // The text of an earlier attempt that answered does not count either (found by the fuzzer, issue 16).
    resetText(env, cell, index)
    const startedAt = env.now()
    const named = (driver as { readonly modelId?: unknown }).modelId
    const modelId = typeof named === "string" ? named : Driver_.modelOf(driver)?.id
    // Every call is an attempt from the moment it starts, whatever ends it: an answer,
    // an error, or an interruption (a wrap hook's timeout, the run's abort or time limit).
    const slot = attempts.length
    attempts.push({ attempt: Step.inferenceAttempt({ modelId, startedAt, durationMs: 0, error: interrupted() }), response: undefined, cut: true, open: true })
    const answer = callDriver(env, cell, c.request ?? request, index, driver)
    // Whoever set Driver.AroundCall around `next` (telemetry) sees each attempt and its model.
    const around = Effect.flatMap(Driver_.AroundCall, (f) => f === undefined ? answer : f(answer, { model: Driver_.modelOf(driver) }))
    return Effect.onExit(around, (exit) =>
      Effect.sync(() => {
        const durationMs = env.now() - startedAt
        if (Exit.isSuccess(exit)) {
          attempts[slot] = {
            attempt: Step.inferenceAttempt({ modelId: exit.value.modelId, startedAt, durationMs, usage: exit.value.usage }),
            response: exit.value,
            cut: false,
          }
          return
        }
        const cut = !exit.cause.reasons.some(Cause.isFailReason) && Exit.hasInterrupts(exit)
        attempts[slot] = {
          attempt: Step.inferenceAttempt({ modelId, startedAt, durationMs, error: cut ? interrupted() : Driver_.inferenceFailed(Cause.squash(exit.cause)) }),
          response: undefined,
          cut,
        }
      }))
  }
  const hookEnv = { ...env.hooks, onCut: (ended: Exit.Exit<unknown, unknown>) => cutBy(attempts, ended) }
  return HookStack.wrapInference(stack, ctx, call, hookEnv).pipe(
    // The call failed after an attempt streamed text, or answered with other than the last attempt's answer.
    Effect.tapError(() => Effect.sync(() => resetText(env, cell, index))),
    Effect.tap((response) => Effect.sync(() => response !== attempts.at(-1)?.response && resetText(env, cell, index))),
  )
}
