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

class FiberIterator<A> implements AsyncIterator<A> {
  private buffer: Array<A> = []
  private head = 0
  private fiber: Fiber.Fiber<unknown> | undefined = undefined
  private exit: Exit.Exit<unknown> | undefined = undefined
  private waiter: { readonly resolve: (r: IteratorResult<A>) => void; readonly reject: (e: unknown) => void } | undefined = undefined
  private closing: Promise<IteratorResult<A>> | undefined = undefined

  constructor(private readonly start: (push: (a: A) => void) => Effect.Effect<unknown>) {}

  next(): Promise<IteratorResult<A>> {
    if (this.closing !== undefined) return this.closing
    if (this.fiber === undefined) this.run()
    if (this.head < this.buffer.length) return Promise.resolve({ done: false, value: this.take() })
    if (this.exit !== undefined) return this.end(this.exit)
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject }
    })
  }

  return(): Promise<IteratorResult<A>> {
    if (this.closing !== undefined) return this.closing
    this.buffer = []
    this.head = 0
    const fiber = this.fiber
    this.closing = fiber === undefined || this.exit !== undefined
      ? Promise.resolve(done)
      : new Promise((resolve) => {
        fiber.addObserver(() => resolve(done))
        fiber.interruptUnsafe()
      })
    const waiter = this.waiter
    this.waiter = undefined
    waiter?.resolve(done)
    return this.closing
  }

  private run(): void {
    const fiber = Effect.runFork(this.start((a) => this.push(a)))
    this.fiber = fiber
    fiber.addObserver((exit) => {
      this.exit = exit
      this.wake()
    })
  }

  private push(a: A): void {
    if (this.closing !== undefined) return
    this.buffer.push(a)
    if (this.waiter !== undefined) this.wake()
  }

  private take(): A {
    const value = this.buffer[this.head] as A
    this.buffer[this.head] = undefined as A
    if (++this.head === this.buffer.length) {
      this.buffer.length = 0
      this.head = 0
    }
    return value
  }

  private wake(): void {
    const waiter = this.waiter
    if (waiter === undefined) return
    if (this.head < this.buffer.length) {
      this.waiter = undefined
      waiter.resolve({ done: false, value: this.take() })
    } else if (this.exit !== undefined) {
      this.waiter = undefined
      this.end(this.exit).then(waiter.resolve, waiter.reject)
    }
  }

  private end(exit: Exit.Exit<unknown>): Promise<IteratorResult<A>> {
    return Exit.isSuccess(exit) ? Promise.resolve(done) : Promise.reject(Cause.squash(exit.cause))
  }
}

/** The values `start` pushes while its fiber runs, for `for await`. */
export const make = <A>(start: (push: (a: A) => void) => Effect.Effect<unknown>): AsyncIterable<A> => ({
  [Symbol.asyncIterator]: () => new FiberIterator(start),
})
