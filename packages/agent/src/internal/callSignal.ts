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
//   the call is interrupted.
import type { CallOptions } from "../Driver.js"

export class RunCallOptions implements CallOptions {
  #controller: AbortController | undefined = undefined
  #aborted = false

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController()
      if (this.#aborted) this.#controller.abort()
    }
    return this.#controller.signal
  }

  /** The run is aborting: the signal aborts, and any read later is aborted too. */
  abort(): void {
    this.#aborted = true
    this.#controller?.abort()
  }

  /** One call was interrupted: the signal it may have read aborts; the next call reads a fresh one. */
  abortCall(): void {
    const controller = this.#controller
    if (controller === undefined || this.#aborted) return
    this.#controller = undefined
    controller.abort()
  }
}

export class CallSignal implements CallOptions {
  #controller: AbortController | undefined = undefined
  #signal: AbortSignal | undefined = undefined

  constructor(private readonly given: CallOptions) {}

  // As before this module: the given signal, or the call's own on interruption. It
  // keeps following the given signal after the call (a driver may hand it on), through
  // AbortSignal.any's weak references, not a listener on the given signal.
  get signal(): AbortSignal {
    if (this.#signal === undefined) {
      this.#controller = new AbortController()
      this.#signal = AbortSignal.any([this.given.signal, this.#controller.signal])
    }
    return this.#signal
  }

  /** The call was interrupted: its signal aborts. */
  interrupt(): void {
    this.#controller?.abort()
  }
}
