/**
 * Watches for unhandled rejections while a test runs: the proof that a hook, an
 * interceptor or a run left no Promise rejected and unhandled (an `async` function
 * registered as a pure hook, a rejected Promise a hook throws). Vitest reports such a
 * rejection too, but against no test in particular; a watcher makes the test that caused
 * it fail. Node only (it listens on `process`).
 *
 * ```ts
 * let watcher: Rejections.Watcher
 * beforeEach(() => void (watcher = Rejections.watch()))
 * afterEach(() => watcher.stop())
 * it("leaves nothing unhandled", async () => {
 *   await agent.run("go")
 *   expect(await watcher.settled()).toEqual([])
 * })
 * ```
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 * @category models
 */
export interface Watcher {
  /** The reasons of every unhandled rejection seen since `watch()`, in order. */
  readonly rejections: ReadonlyArray<unknown>
  /**
   * Waits until Node has reported the rejections of what ran so far (it reports them
   * after the microtasks of a macrotask: two macrotask turns are past that point), then
   * gives `rejections`.
   */
  readonly settled: () => Promise<ReadonlyArray<unknown>>
  /** Stops listening (call it after each test). */
  readonly stop: () => void
}

/**
 * Starts recording every unhandled rejection, until `stop()`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const watch = (): Watcher => {
  const rejections: Array<unknown> = []
  const listener = (reason: unknown): void => void rejections.push(reason)
  process.on("unhandledRejection", listener)
  return {
    rejections,
    settled: async () => {
      await new Promise((resolve) => setTimeout(resolve, 0))
      await new Promise((resolve) => setImmediate(resolve))
      return rejections
    },
    stop: () => void process.off("unhandledRejection", listener),
  }
}
