// The run's steps against its time limit and the caller's abort signal, whichever ends
// first. `Effect.raceFirst` forks every contestant: a run waiting on a slow model held
// three fibers (itself, the steps, a sleeping one) and the race's closures, about 2.9 KB
// of the 13 KB an in-flight run held (issue 27). Here the steps are the one forked
// fiber, and the run waits for its exit, a plain timer or the signal's abort event.
//
// The timer is the clock's sleep only when the clock is Effect's default one (a
// `setTimeout`); any other clock (a TestClock) sleeps through the clock, as before.
// Either way the loser is interrupted, and awaited, before the run goes on: the same
// order as `raceFirst` (its losers are interrupted when the race returns).
import { Clock, Context, Effect, Fiber } from "effect"

const defaultClock = Context.get(Context.empty(), Clock.Clock)

// The default clock's longest single timer; longer sleeps go through the clock.
const longestTimer = 2 ** 31 - 1

export interface Bounds<A> {
  /** Milliseconds until the time limit, or none. */
  readonly ms: number | undefined
  readonly timedOut: A
  /** The caller's signal (not yet aborted), or none. */
  readonly signal: AbortSignal | undefined
  readonly aborted: A
  readonly clock: Clock.Clock
}

/** `steps`, unless the time limit passes or the signal aborts first. */
export const bounded = <A, R>(steps: Effect.Effect<A, never, R>, bounds: Bounds<A>): Effect.Effect<A, never, R> => {
  const { ms, signal } = bounds
  if (ms === undefined && signal === undefined) return steps
  // A deadline already reached (the clock's sleep yields once) or beyond one timer, or
  // another clock: the clock's own sleep, in a race as before.
  if (ms !== undefined && (bounds.clock !== defaultClock || ms <= 0 || ms > longestTimer)) {
    const raced = Effect.raceFirst(steps, Effect.as(Effect.sleep(ms), bounds.timedOut))
    return signal === undefined ? raced : bounded(raced, { ...bounds, ms: undefined })
  }
  // Detached, as `raceFirst`'s contestants: this wait interrupts it itself, and a child
  // would cost the run a set of children. Undone (timer, listener) and the steps
  // interrupted when the wait ends, whether it resumed or was interrupted.
  const wait = new Wait(bounds)
  return Effect.flatMap(
    Effect.forkDetach(steps, { startImmediately: true }),
    (fiber) =>
      Effect.onExit(Effect.callback<A>((resume) => wait.start(fiber, resume)), () => {
        wait.undo()
        return Fiber.interrupt(fiber)
      }),
  )
}

// Resumes with the first of: the fiber's exit, `timedOut`, `aborted` (checked in this
// order when they are already there, as `raceFirst` forks its contestants in order).
// A class, not closures: a waiting run holds one object and two callbacks.
class Wait<A> {
  done = false
  timer: ReturnType<typeof setTimeout> | undefined = undefined
  onAbort: (() => void) | undefined = undefined
  resume: ((effect: Effect.Effect<A>) => void) | undefined = undefined
  readonly ms: number | undefined
  readonly signal: AbortSignal | undefined
  readonly timedOut: A
  readonly aborted: A

  constructor(bounds: Bounds<A>) {
    this.ms = bounds.ms
    this.signal = bounds.signal
    this.timedOut = bounds.timedOut
    this.aborted = bounds.aborted
  }

  start(fiber: Fiber.Fiber<A>, resume: (effect: Effect.Effect<A>) => void): void {
    this.resume = resume
    fiber.addObserver((exit) => this.end(exit))
    if (this.done) return
    if (this.ms !== undefined) this.timer = setTimeout(() => this.end(Effect.succeed(this.timedOut)), this.ms)
    const signal = this.signal
    if (signal === undefined) return
    // A signal aborted while the steps ran up to their first wait fires no event.
    if (signal.aborted) {
      this.end(Effect.succeed(this.aborted))
      return
    }
    this.onAbort = () => this.end(Effect.succeed(this.aborted))
    signal.addEventListener("abort", this.onAbort, { once: true })
  }

  undo(): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    if (this.onAbort !== undefined) this.signal?.removeEventListener("abort", this.onAbort)
    this.timer = undefined
    this.onAbort = undefined
  }

  end(effect: Effect.Effect<A>): void {
    if (this.done) return
    this.done = true
    this.undo()
    this.resume?.(effect)
  }
}
