// Lines concurrent requests up at the store: the first `n` loads of a chat wait until all
// `n` have read it, so each of them saw the same (absent) run, as two requests at the same
// instant do. Later loads pass at once.
import type { AgentState } from "@hookline/core"

export const lineUp = (n: number) => (load: (id: string) => Promise<AgentState | undefined>) => {
  const waiting: Array<() => void> = []
  let calls = 0
  return async (id: string): Promise<AgentState | undefined> => {
    const state = await load(id)
    if (++calls > n) return state
    await new Promise<void>((resolve) => {
      waiting.push(resolve)
      if (waiting.length === n) for (const release of waiting) release()
    })
    return state
  }
}

/** A promise with its resolve, for a test to hold a turn until it says so. */
export const deferred = () => {
  let resolve!: () => void
  const promise = new Promise<void>((r) => {
    resolve = r
  })
  return { promise, resolve }
}
