// Hook-execution listeners as one sink: a run's own listeners (UseHookListener), those
// its parent run passed down (a subagent), the caller's sink and the stream. A listener
// is an observer: a throw is caught here, so it neither changes the run nor keeps the
// listeners after it from hearing the event.
import type { HookExecuted } from "@hookline/core"

type Sink = HookExecuted.EventSink

// Sinks this module made: already guarded, so combining them again adds no second guard.
const made = new WeakSet<Sink>()

const guarded = (sink: Sink): Sink => {
  if (made.has(sink)) return sink
  const safe: Sink = (event) => {
    try {
      sink(event)
    } catch {
      // Ignored: see above.
    }
  }
  made.add(safe)
  return safe
}

/** One sink for all of `sinks` (`undefined` when there is none: no events are built). */
export const combine = (sinks: ReadonlyArray<Sink | undefined>): Sink | undefined => {
  const present = sinks.filter((s): s is Sink => s !== undefined)
  if (present.length === 0) return undefined
  if (present.length === 1) return guarded(present[0] as Sink)
  const all = present.map(guarded)
  const each: Sink = (event) => {
    for (const sink of all) sink(event)
  }
  made.add(each)
  return each
}
