// A signal made the first time someone reads it: an AbortController costs microseconds
// on Node 20, and most drivers and tools never read their signal. `abort` aborts it, and
// a signal read after that is aborted too. (Private fields stay writable on a frozen
// instance, so a frozen subclass keeps working.)
export class LazySignal {
  #controller: AbortController | undefined = undefined
  #aborted = false

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController()
      if (this.#aborted) this.#controller.abort()
    }
    return this.#controller.signal
  }

  /** Aborts the signal, and any read later. */
  abort(): void {
    this.#aborted = true
    this.#controller?.abort()
  }

  /** Aborts the signal handed out so far (unless all is aborted); the next read gets a fresh one. */
  protected renew(): void {
    const controller = this.#controller
    if (controller === undefined || this.#aborted) return
    this.#controller = undefined
    controller.abort()
  }
}
