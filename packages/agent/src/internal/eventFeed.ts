// The events of a streamed run, handed to the consumer as it asks for them, with a
// barrier the loop waits on before it does something a consumer could see happen (a
// tool runs): `settled` holds until the consumer has taken every event so far and
// asked for the next one, so `ToolCallRequested` reaches it before the tool runs,
// however fast the tool is.
import { Cause, Effect } from "effect"

type Resume<A> = (effect: Effect.Effect<A, Cause.Done>) => void

export interface EventFeed<A> {
  readonly push: (event: A) => void
  readonly end: () => void
  /** What the stream pulls: every event not yet taken, or Done after `end`. */
  readonly pull: Effect.Effect<readonly [A, ...Array<A>], Cause.Done>
  /** Succeeds once the consumer took every pushed event and waits for more (or the feed ended). */
  readonly settled: Effect.Effect<void>
}

export const make = <A>(): EventFeed<A> => {
  let buffer: Array<A> = []
  let taker: Resume<readonly [A, ...Array<A>]> | undefined
  let waiters: Array<() => void> = []
  let ended = false
  const release = () => {
    const released = waiters
    waiters = []
    for (const resume of released) resume()
  }
  return {
    push: (event) => {
      if (ended) return
      const resume = taker
      if (resume === undefined) {
        buffer.push(event)
        return
      }
      taker = undefined
      resume(Effect.succeed([event]))
    },
    end: () => {
      ended = true
      const resume = taker
      taker = undefined
      resume?.(Cause.done())
      release()
    },
    pull: Effect.callback<readonly [A, ...Array<A>], Cause.Done>((resume) => {
      if (buffer.length > 0) {
        const taken = buffer as unknown as readonly [A, ...Array<A>]
        buffer = []
        return resume(Effect.succeed(taken))
      }
      if (ended) return resume(Cause.done())
      taker = resume
      release()
      return Effect.sync(() => {
        if (taker === resume) taker = undefined
      })
    }),
    settled: Effect.callback<void>((resume) => {
      if (ended || (taker !== undefined && buffer.length === 0)) return resume(Effect.void)
      const waiter = () => resume(Effect.void)
      waiters.push(waiter)
      return Effect.sync(() => {
        waiters = waiters.filter((w) => w !== waiter)
      })
    }),
  }
}
