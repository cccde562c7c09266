/**
 * The law of wrap hooks that are pure apart from `next`: given the same context and a
 * `next` that behaves the same, a wrap hook calls `next` with the same contexts, in
 * the same order, and ends the same way; it never changes its input; and what it
 * passes to `next` is a context of the same trigger.
 *
 * @since 0.1.0
 */
import { AgentError, HookContext, InferenceResponse, ToolExecution, type WrapHook } from "@hookline/core"
import { Effect, Exit } from "effect"
import fc from "fast-check"
import * as Arbitraries from "../Arbitraries.js"
import { canonical } from "../internal/inspect.js"
import { LawFailed, withRunContext, type Options } from "./run.js"

/** One answer of the scripted `next`: a success, or a failure of the call. */
type Scripted = { readonly ok: boolean; readonly n: number }

const scripted: fc.Arbitrary<ReadonlyArray<Scripted>> = fc.array(fc.record({ ok: fc.boolean(), n: fc.nat(999) }), { maxLength: 5 })

const answerOf = (wrap: WrapHook.WrapHook<unknown, never>, ctx: HookContext, s: Scripted | undefined) => {
  const step = s ?? { ok: true, n: 0 }
  if (wrap.point === "WrapInference") {
    return step.ok
      ? Effect.succeed(InferenceResponse.make({ text: `answer ${step.n}`, modelId: "law" }))
      : Effect.fail(AgentError.inferenceFailed(`failure ${step.n}`, { status: 500 + (step.n % 4), retryable: step.n % 2 === 0 }))
  }
  const call = ctx.toolCall ?? { id: "law", name: "law", arguments: {} }
  return Effect.succeed(
    step.ok
      ? ToolExecution.success(call, `result ${step.n}`, 0, 0)
      : ToolExecution.failure(call, AgentError.toolFailed(call.id, call.name, `failure ${step.n}`), 0, 0),
  )
}

/** Runs the wrap once against the script; what it gave and every context it passed on. */
const runOnce = (wrap: WrapHook.WrapHook<unknown, never>, ctx: HookContext, script: ReadonlyArray<Scripted>) => {
  const passed: Array<unknown> = []
  const next = (c: unknown) => {
    passed.push(c)
    return answerOf(wrap, HookContext.isHookContext(c) ? c : ctx, script[passed.length - 1])
  }
  let exit: Exit.Exit<unknown, unknown>
  try {
    exit = Effect.runSyncExit(Effect.suspend(() => (wrap.run as (c: HookContext, n: typeof next) => Effect.Effect<unknown, unknown>)(ctx, next)))
  } catch (error) {
    exit = Exit.die(error)
  }
  return { exit, passed }
}

const describeExit = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isSuccess(exit) ? `returned ${canonical(exit.value)}` : `failed with ${canonical(exit.cause.reasons.map((r) => r._tag === "Fail" ? r.error : r._tag === "Die" ? String(r.defect) : r._tag))}`

/** What is wrong with one case, or `undefined`. */
export const violation = (
  wrap: WrapHook.WrapHook<unknown, never>,
  ctx: HookContext,
  script: ReadonlyArray<Scripted>,
): string | undefined => {
  const before = canonical(ctx)
  const first = runOnce(wrap, ctx, script)
  if (canonical(ctx) !== before) return "changed its input context"
  const bad = first.passed.findIndex((c) => !HookContext.isHookContext(c) || c.trigger !== ctx.trigger)
  if (bad >= 0) return `call ${bad + 1} of next got something that is not a ${ctx.trigger} context`
  if (Exit.isFailure(first.exit) && first.exit.cause.reasons.some((r) => r._tag === "Die" && String(r.defect).includes("AsyncFiberError"))) {
    return "waited (it is not pure apart from next: check it with TestClock in a test of its own)"
  }
  const second = runOnce(wrap, ctx, script)
  if (canonical(first.passed) !== canonical(second.passed)) return "called next with other contexts on a second run with the same input"
  if (describeExit(first.exit) !== describeExit(second.exit)) {
    return `ended differently on a second run with the same input: ${describeExit(first.exit)}, then ${describeExit(second.exit)}`
  }
  return undefined
}

/**
 * Checks a wrap hook that is pure apart from `next` (no clock, no randomness, no I/O
 * of its own) over generated contexts of its point (BeforeInference contexts with a
 * request, or BeforeToolUse contexts with a tool call) and generated behaviours of
 * `next`. Throws `LawFailed` (law `wrapPure`) with the shrunk counterexample.
 *
 * @since 0.1.0
 * @category laws
 */
export const checkWrap = (wrap: WrapHook.WrapHook<unknown, never>, options: Omit<Options, "triggers"> = {}): void => {
  const trigger = wrap.point === "WrapInference" ? "BeforeInference" : "BeforeToolUse"
  const contexts = options.contexts ?? Arbitraries.hookContextOf([trigger], withRunContext(options.arbitraries))
  let reason = ""
  const details = fc.check(
    fc.property(contexts, scripted, (ctx, script) => {
      const v = violation(wrap, ctx, script)
      reason = v ?? reason
      return v === undefined
    }),
    {
      ...(options.numRuns === undefined ? {} : { numRuns: options.numRuns }),
      ...(options.seed === undefined ? {} : { seed: options.seed }),
      ...(options.path === undefined ? {} : { path: options.path, endOnFailure: true }),
    },
  )
  if (!details.failed) return
  const [context, script] = (details.counterexample ?? [undefined, undefined]) as [HookContext | undefined, ReadonlyArray<Scripted>]
  const label = options.name ?? "wrap"
  const final = context === undefined ? reason : violation(wrap, context, script) ?? reason
  const seedAndPath = `seed: ${details.seed}, path: ${JSON.stringify(details.counterexamplePath)}`
  throw new LawFailed(
    "wrapPure",
    final,
    context?.trigger,
    context === undefined ? undefined : { context, extra: script },
    details.seed,
    details.counterexamplePath ?? undefined,
    [
      `HookLaws.wrapPure failed for ${JSON.stringify(label)} on ${wrap.point}: ${final}`,
      `Replay: HookLaws.checkWrap(wrap, { ${seedAndPath} })`,
      `next answered: ${fc.stringify(script)}`,
    ].join("\n"),
  )
}
