// The interpreter both directions share: pulls a run's events, maps each through a pure
// step (events → UI chunks, or → model stream parts) and writes what it gives to a
// ReadableStream; an error from the events ends it with the step's closing parts.
// Cancelling the stream ends the events' iteration, which aborts the run.
import type { AgentEvent } from "@hookline/agent"

/** A pure mapping of events to parts, with the state it carries from one event to the next. */
export interface Mapping<S, P> {
  readonly initial: S
  readonly step: (state: S, event: AgentEvent) => { readonly state: S; readonly parts: ReadonlyArray<P> }
  /** The parts that end a stream whose events broke off with `error`. */
  readonly broken: (state: S, error: unknown) => ReadonlyArray<P>
}

/** The events as a stream of the parts `mapping` gives them. */
export const eventStream = <S, P>(events: AsyncIterable<AgentEvent>, mapping: Mapping<S, P>): ReadableStream<P> => {
  let iterator: AsyncIterator<AgentEvent> | undefined
  let state = mapping.initial
  let done = false
  return new ReadableStream<P>({
    pull: async (controller) => {
      if (done) return
      iterator ??= events[Symbol.asyncIterator]()
      try {
        // Pull events until one shows something: a pull that enqueues nothing is not asked again.
        for (;;) {
          const next = await iterator.next()
          if (next.done === true) {
            done = true
            controller.close()
            return
          }
          const mapped = mapping.step(state, next.value)
          state = mapped.state
          for (const part of mapped.parts) controller.enqueue(part)
          if (mapped.parts.length > 0) return
        }
      } catch (error) {
        done = true
        for (const part of mapping.broken(state, error)) controller.enqueue(part)
        controller.close()
      }
    },
    cancel: async () => {
      done = true
      await iterator?.return?.()
    },
  })
}
