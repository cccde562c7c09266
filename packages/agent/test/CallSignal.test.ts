import { getEventListeners } from "node:events"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { Effect } from "effect"
import * as t from "io-ts"
import { afterEach, describe, expect, it } from "vitest"
import { InferenceRequest, InferenceResponse, Message, ToolCall } from "@hookline/core"
import { AgentBuilder, Driver, Tool, UseDriver, UseTools } from "@hookline/agent"

// The signal a model call gets (internal/callSignal.ts): none is made unless a driver
// reads it, one per run for the loop's calls, and nothing is left on a signal the
// caller keeps.

const request = InferenceRequest.make({ messages: [Message.user("hi")] })
const echoCall = (i: number) => ToolCall.make({ id: `c${i}`, name: "echo", arguments: { i } })
const echo = Tool.make({ name: "echo", parameters: t.type({ i: t.number }), execute: async ({ i }) => i })

/** Answers with `steps - 1` echo calls, then "done"; `read` sees the signal of each call. */
const model = (steps: number, read?: (signal: AbortSignal) => void) =>
  Driver.fromPromise({
    generate: async (req, options) => {
      read?.(options.signal)
      const step = (req.messages.length - 1) >> 1
      return step < steps - 1 ? InferenceResponse.make({ toolCalls: [echoCall(step + 1)] }) : { text: "done" }
    },
  })

// AbortControllers made while `count` is installed.
const Original = globalThis.AbortController
let made = 0
const count = (): void => {
  made = 0
  globalThis.AbortController = class extends Original {
    constructor() {
      super()
      made++
    }
  }
}
afterEach(() => {
  globalThis.AbortController = Original
})

const gc = (): (() => void) => {
  setFlagsFromString("--expose-gc")
  return runInNewContext("gc") as () => void
}

/**
 * How much the heap grew over each of eight batches, collected before and after each.
 * The first batches grow as V8 optimizes the loop's code and refills what a full
 * collection dropped; a leak grows every batch, so the least of the last four tells one
 * from the other.
 */
const leastHeapGrowth = async (batch: () => Promise<void>): Promise<number> => {
  const collect = gc()
  const growths: Array<number> = []
  for (let i = 0; i < 8; i++) {
    collect()
    const before = process.memoryUsage().heapUsed
    await batch()
    collect()
    growths.push(process.memoryUsage().heapUsed - before)
  }
  return Math.min(...growths.slice(4))
}

describe("CallSignal", () => {
  describe("Driver.fromPromise in a run", () => {
    it("makes no AbortController when neither the driver nor the tool reads a signal", async () => {
      const agent = AgentBuilder.make(UseDriver(model(4)), UseTools([echo]))
      count()
      const final = await agent.run("go")
      expect(final.execution.status).toBe("completed")
      expect(made).toBe(0)
    })

    it("makes one signal for all the model calls of a run", async () => {
      const signals: Array<AbortSignal> = []
      const agent = AgentBuilder.make(UseDriver(model(4, (s) => signals.push(s))), UseTools([echo]))
      count()
      const final = await agent.run("go")
      expect(final.execution.status).toBe("completed")
      expect(signals).toHaveLength(4)
      expect(new Set(signals).size).toBe(1)
      expect(made).toBe(1)
      expect(signals[0]?.aborted).toBe(false)
    })

    it("aborts the signal the model call read when the run is aborted", async () => {
      const controller = new AbortController()
      let seen: AbortSignal | undefined
      const driver = Driver.fromPromise({
        generate: (_req, { signal }) =>
          new Promise((_resolve, reject) => {
            seen = signal
            signal.addEventListener("abort", () => reject(new Error("aborted")))
            controller.abort()
          }),
      })
      const final = await AgentBuilder.make(UseDriver(driver)).run("go", { signal: controller.signal })
      expect(final.execution.status).toBe("stopped")
      expect(seen?.aborted).toBe(true)
    })

    it("aborts the signal of a call interrupted alone, and gives the next call a live one", async () => {
      const signals: Array<AbortSignal> = []
      let calls = 0
      const inner = Driver.fromPromise({
        generate: (_req, { signal }) => {
          signals.push(signal)
          // The first call never answers; the second does.
          return ++calls === 1 ? new Promise<never>(() => {}) : Promise.resolve({ text: "second" })
        },
      })
      // A driver that gives up on a call (as a timeout would), then asks again.
      const fallback = InferenceResponse.make({ text: "gave up" })
      const outer = Driver.make({
        generate: (req, options) =>
          Effect.raceFirst(inner.generate(req, options), Effect.succeed(fallback)).pipe(
            Effect.flatMap(() => inner.generate(req, options)),
          ),
      })
      const final = await AgentBuilder.make(UseDriver(outer)).run("go")
      expect(final.context.messages.last()?.content).toBe("second")
      expect(signals).toHaveLength(2)
      expect(signals[0]?.aborted).toBe(true)
      expect(signals[1]?.aborted).toBe(false)
    })
  })

  describe("a long-lived AbortSignal", () => {
    it("gains no listeners and no heap over 40,000 runs whose model reads the signal", async () => {
      const kept = new AbortController().signal
      // How many calls saw the kept signal, and the most listeners it had during one.
      let seen = 0
      let most = 0
      const agent = AgentBuilder.make(
        UseDriver(model(2, (signal) => {
          if (signal.aborted) throw new Error("the call's signal is aborted")
          seen++
          most = Math.max(most, getEventListeners(kept, "abort").length)
        })),
        UseTools([echo]),
      )
      let completed = 0
      const runs = async (): Promise<void> => {
        for (let i = 0; i < 5_000; i++) if ((await agent.run("go", { signal: kept })).execution.status === "completed") completed++
      }
      const grown = await leastHeapGrowth(runs)
      expect(completed).toBe(40_000)
      // While a run is under way it listens at most once (to stop when the signal aborts); after it, never.
      expect(seen).toBe(80_000)
      expect(most).toBe(1)
      expect(getEventListeners(kept, "abort")).toHaveLength(0)
      // Less than 50 bytes per run in every batch: a signal, a listener or a weak reference kept per run would be more.
      expect(grown).toBeLessThan(5_000 * 50)
    }, 120_000)

    it("gains no listeners and no heap over 40,000 direct calls of a driver that reads it", async () => {
      const kept = new AbortController().signal
      let live = 0
      const driver = model(1, (signal) => {
        if (!signal.aborted && signal !== kept) live++
      })
      const calls = async (): Promise<void> => {
        for (let i = 0; i < 5_000; i++) await Effect.runPromise(driver.generate(request, { signal: kept }))
      }
      const grown = await leastHeapGrowth(calls)
      expect(live).toBe(40_000)
      expect(getEventListeners(kept, "abort")).toHaveLength(0)
      expect(grown).toBeLessThan(5_000 * 50)
    }, 120_000)
  })
})
