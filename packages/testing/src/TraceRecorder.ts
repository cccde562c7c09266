/**
 * Records a run: every `HookExecuted` event (grouped into dispatches: one trigger's
 * hooks running once) and the state after each step, with helpers to assert the order
 * hooks ran in. Plug it in as a sink (`agent.run(q, { sink: recorder.sink })`), feed it
 * the events of `agent.stream(q, { hookEvents: true })` (`recorder.onEvent`), the states of `agent.iterate`
 * (`recorder.onState`), or let `TraceRecorder.run(agent, q)` do it all.
 *
 * ```ts
 * const recorder = await TraceRecorder.run(agent, "go")
 * TraceRecorder.expectRanBefore(recorder, "guard:steps_limit", "log:audit", { trigger: "BeforeStep" })
 * ```
 *
 * @since 0.1.0
 */
import type { Agent, AgentEvent, AgentLoop } from "@hookline/agent"
import type { AgentState, HookExecuted, HookTrigger, WrapHook } from "@hookline/core"

/**
 * One trigger's hooks running once, in order.
 *
 * @since 0.1.0
 * @category models
 */
export interface Dispatch {
  /** A trigger, or the wrap point of wrap hooks. */
  readonly trigger: HookTrigger | WrapHook.WrapPoint
  /** How many steps had ended when it ran (0 during the first step); counted from the events of `onEvent`. */
  readonly step: number
  readonly events: ReadonlyArray<HookExecuted>
  /** The hooks' names, in the order they ran. */
  readonly hooks: ReadonlyArray<string>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface TraceRecorder {
  /** A `HookExecuted` sink: `agent.run(q, { sink: recorder.sink })`, `HookStack.run(stack, ctx, { sink })`. */
  readonly sink: HookExecuted.EventSink
  /** Takes the events of `agent.stream` / `AgentLoop.stream` (with `hookEvents: true`: hook executions), step ends, the run's end. */
  readonly onEvent: (event: AgentEvent) => void
  /** Takes the states of `agent.iterate` / `AgentLoop.iterate` (the last one is the final state). */
  readonly onState: (state: AgentState) => void
  /** Every hook execution, in order. */
  readonly events: ReadonlyArray<HookExecuted>
  /** The hook executions grouped by dispatch, in order. */
  readonly dispatches: ReadonlyArray<Dispatch>
  /** The state after each step (from StepEnded events or `onState`). */
  readonly states: ReadonlyArray<AgentState>
  /** The final state, once the run ended (RunEnded, or the last `onState`). */
  readonly final: AgentState | undefined
}

interface MutableDispatch {
  readonly trigger: HookTrigger | WrapHook.WrapPoint
  readonly step: number
  readonly events: Array<HookExecuted>
  readonly hooks: Array<string>
}

/**
 * An empty recorder.
 *
 * A new dispatch starts when the trigger changes or a hook name already seen in the
 * current dispatch comes again (each dispatch runs a trigger's list once). Tool calls
 * run concurrently (`toolConcurrency: "concurrent"`) interleave their dispatches, so
 * group by trigger only in that case.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (): TraceRecorder => {
  const events: Array<HookExecuted> = []
  const dispatches: Array<MutableDispatch> = []
  const states: Array<AgentState> = []
  let final: AgentState | undefined
  let steps = 0
  let fromIterate = false

  const sink = (event: HookExecuted): void => {
    events.push(event)
    const current = dispatches[dispatches.length - 1]
    if (current === undefined || current.trigger !== event.trigger || current.hooks.includes(event.hook) || current.step !== steps) {
      dispatches.push({ trigger: event.trigger, step: steps, events: [event], hooks: [event.hook] })
    } else {
      current.events.push(event)
      current.hooks.push(event.hook)
    }
  }
  const onEvent = (event: AgentEvent): void => {
    switch (event._tag) {
      case "HookExecuted":
        return sink(event.event)
      case "StepEnded":
        states.push(event.state)
        steps++
        return
      case "RunEnded":
        final = event.state
        return
    }
  }
  const onState = (state: AgentState): void => {
    // iterate gives the state after each step, then the final state: the final one
    // replaces its place once another comes.
    if (fromIterate && final !== undefined) {
      states.push(final)
      steps++
    }
    fromIterate = true
    final = state
  }
  return {
    sink,
    onEvent,
    onState,
    events,
    dispatches,
    states,
    get final() {
      return final
    },
  }
}

/**
 * The arguments of `run` after the input: the run's options, required with its
 * `context` when the agent's hooks or tools read one (as `agent.run` asks), then the
 * recorder.
 *
 * @since 0.1.0
 * @category models
 */
export type RunArguments<C> = unknown extends C ? [options?: AgentLoop.RunOptions<C>, recorder?: TraceRecorder]
  : [options: AgentLoop.RunOptions<C> & { readonly context: C }, recorder?: TraceRecorder]

/**
 * Runs the agent to the end through `agent.stream`, recording everything; resolves
 * with the recorder (`recorder.final` is the final state). An agent with a per-run
 * context takes it as `agent.run` does: `run(agent, "go", { context })`.
 *
 * @since 0.1.0
 * @category running
 */
export const run = async <C = unknown>(
  agent: Agent<C>,
  input: AgentLoop.Input,
  ...[options, recorder = make()]: NoInfer<RunArguments<C>>
): Promise<TraceRecorder> => {
  // `RunArguments<C>` is `agent.stream`'s own rest type with the recorder added: the
  // options are what `agent.stream` takes for this `C`.
  const stream = agent.stream as (input: AgentLoop.Input, options?: AgentLoop.RunOptions<C>) => AsyncIterable<AgentEvent>
  // Hook executions are what a trace records: the stream leaves them out unless asked.
  for await (const event of stream.call(agent, input, { ...options, hookEvents: true })) recorder.onEvent(event)
  return recorder
}

/**
 * The dispatches of one trigger (or all), in order.
 *
 * @since 0.1.0
 * @category getters
 */
export const dispatchesOf = (self: TraceRecorder, trigger?: HookTrigger): ReadonlyArray<Dispatch> =>
  trigger === undefined ? self.dispatches : self.dispatches.filter((d) => d.trigger === trigger)

/**
 * The hooks' names in the order they ran: on one trigger (or any), across every
 * dispatch, or in one dispatch of that trigger (`{ dispatch: 0 }` is the first).
 *
 * @since 0.1.0
 * @category getters
 */
export const order = (
  self: TraceRecorder,
  trigger?: HookTrigger,
  options: { readonly dispatch?: number | undefined } = {},
): ReadonlyArray<string> => {
  const list = dispatchesOf(self, trigger)
  if (options.dispatch !== undefined) return list.at(options.dispatch)?.hooks ?? []
  return list.flatMap((d) => d.hooks)
}

/**
 * One line per hook execution, `Trigger hook outcome`, for snapshot-style assertions.
 *
 * @since 0.1.0
 * @category getters
 */
export const lines = (self: TraceRecorder): ReadonlyArray<string> =>
  self.events.map((e) => `${e.trigger} ${e.hook} ${e.outcome}`)

/**
 * The outcomes of one hook's executions, in order (on one trigger, or any).
 *
 * @since 0.1.0
 * @category getters
 */
export const outcomes = (
  self: TraceRecorder,
  hook: string,
  options: { readonly trigger?: HookTrigger | undefined } = {},
): ReadonlyArray<HookExecuted.Outcome> =>
  self.events.filter((e) => e.hook === hook && (options.trigger === undefined || e.trigger === options.trigger)).map((e) => e.outcome)

type Verdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly why: string }

const judge = (self: TraceRecorder, first: string, second: string, trigger: HookTrigger | undefined): Verdict => {
  const on = trigger === undefined ? "" : ` on ${trigger}`
  const list = dispatchesOf(self, trigger)
  const together = list.filter((d) => d.hooks.includes(first) && d.hooks.includes(second))
  if (together.length === 0) {
    const ran = [...new Set(list.flatMap((d) => d.hooks))]
    const missing = [first, second].filter((h) => !ran.includes(h))
    return {
      ok: false,
      why: missing.length > 0
        ? `${missing.map((h) => `"${h}"`).join(" and ")} never ran${on} (hooks that ran${on}: ${ran.length === 0 ? "none" : ran.join(", ")})`
        : `"${first}" and "${second}" never ran in the same dispatch${on}`,
    }
  }
  for (const d of together) {
    if (d.hooks.indexOf(first) > d.hooks.indexOf(second)) {
      const index = list.indexOf(d)
      return { ok: false, why: `in dispatch ${index} of ${d.trigger} (step ${d.step}) the order was: ${d.hooks.join(", ")}` }
    }
  }
  return { ok: true }
}

/**
 * Whether `first` ran before `second` in every dispatch (of `trigger`, or any) where
 * both ran, and they ran together at least once.
 *
 * @since 0.1.0
 * @category getters
 */
export const ranBefore = (
  self: TraceRecorder,
  first: string,
  second: string,
  options: { readonly trigger?: HookTrigger | undefined } = {},
): boolean => judge(self, first, second, options.trigger).ok

/**
 * Throws, with the order actually seen, unless `ranBefore` holds.
 *
 * @since 0.1.0
 * @category assertions
 */
export const expectRanBefore = (
  self: TraceRecorder,
  first: string,
  second: string,
  options: { readonly trigger?: HookTrigger | undefined } = {},
): void => {
  const verdict = judge(self, first, second, options.trigger)
  if (!verdict.ok) {
    const on = options.trigger === undefined ? "" : ` on ${options.trigger}`
    throw new Error(`expected "${first}" to run before "${second}"${on}, but ${verdict.why}`)
  }
}
