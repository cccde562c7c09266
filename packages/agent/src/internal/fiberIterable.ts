// An AsyncIterable over what a fiber pushes, for the Promise facade's `stream` and
// `iterate`. `Stream.toAsyncIterable` of a `Stream.callback` starts a fiber and a
// Promise per pull and a channel per chunk; a run pushes a few events per step (and
// one per hook at K hooks), so the facade keeps them in an array and hands them out.
//
// The fiber starts at the first `next()`, one per iterator. The iterator ends when the
// fiber has ended and everything it pushed was taken; a fiber that died makes `next()`
// reject with the defect. `return()` (a `break` out of `for await`) interrupts the
// fiber and resolves once it has ended (its finalizers ran).
import { Cause, Effect, Exit, type Fiber } from "effect"

const done: IteratorResult<never> = Object.freeze({ done: true, value: undefined })

// The buffer keeps its backing store between bursts (values in [head, tail)): a run
// pushes a few events per step, and an emptied array would allocate again for each.
class FiberIterator<A> implements AsyncIterator<A> {
  private buffer: Array<A | undefined> = []
  private head = 0
  private tail = 0
  private fiber: Fiber.Fiber<unknown> | undefined = undefined
  private exit: Exit.Exit<unknown> | undefined = undefined
  // The consumer's pending `next()`, if it waits (two fields, not an object per wait).
  private resolveNext: ((r: IteratorResult<A>) => void) | undefined = undefined
  private rejectNext: ((e: unknown) => void) | undefined = undefined
  private closing: Promise<IteratorResult<A>> | undefined = undefined
  // The fibers waiting until the consumer took everything pushed so far (see `make`),
  // as effect's own resume functions.
  private settledWaiters: Array<(effect: Effect.Effect<void>) => void> = []

  constructor(private readonly start: (push: (a: A) => void, settled: Effect.Effect<void>) => Effect.Effect<unknown>) {}

  // Succeeds once every pushed value was taken and the consumer asks for the next one
  // (a `for await` body has finished with the last), or the iterator is closing. No
  // cancel effect: an interrupted fiber ignores a later resume (effect's callback), and
  // its entry goes at the next release, so a wait allocates no finalizer.
  private readonly settled: Effect.Effect<void> = Effect.callback<void>((resume) => {
    if (this.closing !== undefined || (this.resolveNext !== undefined && this.head >= this.tail)) return resume(Effect.void)
    this.settledWaiters.push(resume)
  })

  private releaseSettled(): void {
    const released = this.settledWaiters
    if (released.length === 0) return
    this.settledWaiters = []
    for (const resume of released) resume(Effect.void)
  }

  next(): Promise<IteratorResult<A>> {
    if (this.closing !== undefined) return this.closing
    if (this.fiber === undefined) this.run()
    if (this.head < this.tail) return Promise.resolve({ done: false, value: this.take() })
    if (this.exit !== undefined) return this.end(this.exit)
    return new Promise((resolve, reject) => {
      this.resolveNext = resolve
      this.rejectNext = reject
      this.releaseSettled()
    })
  }

  return(): Promise<IteratorResult<A>> {
    if (this.closing !== undefined) return this.closing
    this.buffer = []
    this.head = this.tail = 0
    const fiber = this.fiber
    this.closing = fiber === undefined || this.exit !== undefined
      ? Promise.resolve(done)
      : new Promise((resolve) => {
        fiber.addObserver(() => resolve(done))
        fiber.interruptUnsafe()
      })
    const resolve = this.resolveNext
    this.resolveNext = this.rejectNext = undefined
    resolve?.(done)
    this.releaseSettled()
    return this.closing
  }

  private run(): void {
    const fiber = Effect.runFork(this.start((a) => this.push(a), this.settled))
    this.fiber = fiber
    fiber.addObserver((exit) => {
      this.exit = exit
      this.wake()
    })
  }

  private push(a: A): void {
    if (this.closing !== undefined) return
    this.buffer[this.tail++] = a
    if (this.resolveNext !== undefined) this.wake()
  }

  private take(): A {
    const value = this.buffer[this.head] as A
    this.buffer[this.head] = undefined
    if (++this.head === this.tail) this.head = this.tail = 0
    return value
  }

  private wake(): void {
    const resolve = this.resolveNext
    const reject = this.rejectNext
    if (resolve === undefined || reject === undefined) return
    if (this.head < this.tail) {
      this.resolveNext = this.rejectNext = undefined
      resolve({ done: false, value: this.take() })
    } else if (this.exit !== undefined) {
      this.resolveNext = this.rejectNext = undefined
      this.end(this.exit).then(resolve, reject)
    }
  }

  private end(exit: Exit.Exit<unknown>): Promise<IteratorResult<A>> {
    return Exit.isSuccess(exit) ? Promise.resolve(done) : Promise.reject(Cause.squash(exit.cause))
  }
}

/**
 * The values `start` pushes while its fiber runs, for `for await`. `settled` holds
 * until the consumer has taken every value pushed so far and asks for the next: a run
 * waits on it before a tool runs, so the consumer sees the call before the tool acts.
 */
export const make = <A>(start: (push: (a: A) => void, settled: Effect.Effect<void>) => Effect.Effect<unknown>): AsyncIterable<A> => ({
  [Symbol.asyncIterator]: () => new FiberIterator(start),
})
