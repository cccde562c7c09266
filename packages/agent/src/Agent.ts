/**
 * A built agent: its loop and driver, with a Promise facade for users who do not use
 * Effect (`await agent.run("question")`) and the Effect forms for those who do.
 *
 * @since 0.1.0
 */
import { AgentError, StopSignal, type AgentState } from "@hookline/core"
import { Effect, Stream } from "effect"
import type { AgentEvent } from "./AgentEvent.js"
import * as AgentLoop from "./AgentLoop.js"
import { Driver, type DriverShape } from "./Driver.js"

/**
 * The options argument of a run: optional when the agent reads no per-run context
 * (`C` is `unknown`), required with its `context` when it does.
 *
 * @since 0.1.0
 * @category models
 */
export type RunArguments<C> = unknown extends C ? [options?: AgentLoop.RunOptions<C>]
  : [options: AgentLoop.RunOptions<C> & { readonly context: C }]

/**
 * An agent whose hooks and tools read a per-run context of type `C`
 * (`agent.run(input, { context })`); `C` is inferred from them by the builder.
 *
 * @since 0.1.0
 * @category models
 */
export interface Agent<C = unknown> {
  readonly _tag: "Agent"
  readonly loop: AgentLoop.AgentLoop<never, C>
  readonly driver: DriverShape | undefined
  /** Resolves with the final state whatever happened; rejects only for a missing driver. */
  readonly run: (input: AgentLoop.Input, ...options: RunArguments<C>) => Promise<AgentState>
  /** Like `run`, but rejects with a `HooklineError` carrying the error that ended a failed run. */
  readonly runOrThrow: (input: AgentLoop.Input, ...options: RunArguments<C>) => Promise<AgentState>
  /** The run's events; breaking out of the loop aborts the run. */
  readonly stream: (input: AgentLoop.Input, ...options: RunArguments<C>) => AsyncIterable<AgentEvent>
  /** The state after each step, then the final state. */
  readonly iterate: (input: AgentLoop.Input, ...options: RunArguments<C>) => AsyncIterable<AgentState>
  /** The Effect form of `run`, with this agent's driver provided. */
  readonly runEffect: (input: AgentLoop.Input, ...options: RunArguments<C>) => Effect.Effect<AgentState>
}

const missingDriver = (): AgentError.HooklineError =>
  new AgentError.HooklineError(AgentError.invalidConfiguration("driver", "the agent has no driver: add UseDriver(driver)"))

/**
 * The error that ended a failed run, if it failed.
 *
 * @since 0.1.0
 * @category getters
 */
export const failure = (state: AgentState): AgentError.AgentError | undefined => {
  if (state.execution.status !== "failed") return undefined
  const errors = state.execution.errors
  const reason = StopSignal.highest(state.execution.stopSignals)?.message
  return errors.find((e) => e.message === reason) ?? errors[errors.length - 1]
}

/**
 * An agent from a loop and a driver.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <C = unknown>(loop: AgentLoop.AgentLoop<never, C>, driver: DriverShape | undefined): Agent<C> => {
  const provide = <A, E>(effect: Effect.Effect<A, E, Driver>): Effect.Effect<A, E> => {
    if (driver === undefined) return Effect.die(missingDriver())
    return Effect.provideService(effect, Driver, driver)
  }
  const runEffect = (input: AgentLoop.Input, options?: AgentLoop.RunOptions<C>) => provide(AgentLoop.run(loop, input, options))
  const run = (input: AgentLoop.Input, options?: AgentLoop.RunOptions<C>) =>
    driver === undefined ? Promise.reject(missingDriver()) : Effect.runPromise(runEffect(input, options))
  const withDriver = <A>(stream: Stream.Stream<A, never, Driver>): AsyncIterable<A> => {
    if (driver === undefined) throw missingDriver()
    return Stream.toAsyncIterable(Stream.provideService(stream, Driver, driver))
  }
  return Object.freeze({
    _tag: "Agent",
    loop,
    driver,
    run,
    runOrThrow: async (input: AgentLoop.Input, options?: AgentLoop.RunOptions<C>) => {
      const state = await run(input, options)
      const error = failure(state)
      if (error !== undefined) throw new AgentError.HooklineError(error)
      return state
    },
    stream: (input: AgentLoop.Input, options?: AgentLoop.RunOptions<C>) => withDriver(AgentLoop.stream(loop, input, options)),
    iterate: (input: AgentLoop.Input, options?: AgentLoop.RunOptions<C>) => withDriver(AgentLoop.iterate(loop, input, options)),
    runEffect,
  }) as Agent<C>
}
