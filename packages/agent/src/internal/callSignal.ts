// The signals a model call gets. An AbortController costs microseconds on Node 20 and
// `AbortSignal.any` more (plus weak references the collector must clear), so none is
// made until a driver reads `signal`, and a run makes at most one for all its calls.
//
// - `RunCallOptions`: what the loop passes to the driver. One per run; its signal is
//   made on first read and aborts when the run is aborted or interrupted (the loop
//   calls `abort`). A call interrupted on its own (a timeout or a race around it, in a
//   user's driver) aborts the signal it may have read, and the next call reads a new one.
// - `CallSignal`: options for one call made with other options (a driver called
//   directly): its signal, made on first read, follows the given signal and aborts when
//   the call is interrupted; the listener it adds to the given signal is removed when
//   the call ends.
import { Effect } from "effect"
import type { CallOptions } from "./driverContract.js"
import { LazySignal } from "./lazySignal.js"

export class RunCallOptions extends LazySignal implements CallOptions {
  /** One call was interrupted: the signal it may have read aborts; the next call reads a fresh one. */
  abortCall(): void {
    this.renew()
  }

  /** `abortCall` as an Effect, made once per run: a call's interruption handler (not one per call). */
  readonly onCallInterrupted: Effect.Effect<void> = Effect.sync(() => this.abortCall())
}

export class CallSignal implements CallOptions {
  #controller: AbortController | undefined = undefined
  #onAbort: (() => void) | undefined = undefined
  #ended = false

  constructor(private readonly given: CallOptions) {}

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      const controller = new AbortController()
      this.#controller = controller
      const outer = this.given.signal
      if (outer.aborted) controller.abort(outer.reason)
      else if (!this.#ended) {
        const onAbort = () => controller.abort(outer.reason)
        this.#onAbort = onAbort
        outer.addEventListener("abort", onAbort, { once: true })
      }
    }
    return this.#controller.signal
  }

  /** The call ended: stop following the given signal. */
  end(): void {
    this.#ended = true
    const onAbort = this.#onAbort
    if (onAbort === undefined) return
    this.#onAbort = undefined
    this.given.signal.removeEventListener("abort", onAbort)
  }

  /** The call was interrupted: its signal aborts. */
  interrupt(): void {
    this.end()
    this.#controller?.abort()
  }
}
