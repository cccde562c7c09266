// In a file of its own: it needs the first append to the shared empty log of a fresh
// module instance (vitest isolates each test file).
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { describe, expect, it } from "vitest"
import { AppendLog } from "@hookline/core"

describe("AppendLog memory", () => {
  // The shared empty log must not keep the first history built on it alive.
  it("lets a history started from the empty log be garbage-collected", async () => {
    setFlagsFromString("--expose_gc")
    const gc = runInNewContext("gc") as () => void
    const build = () => {
      const payload = { big: new Array(1_000).fill("x") }
      return { ref: new WeakRef(payload), log: AppendLog.append(AppendLog.empty<object>(), payload) }
    }
    let held: ReturnType<typeof build> | undefined = build()
    const ref = held.ref
    held = undefined
    for (let i = 0; i < 5 && ref.deref() !== undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 0))
      gc()
    }
    expect(ref.deref()).toBeUndefined()
  })
})
