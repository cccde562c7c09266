import { AgentState, Message } from "@hookline/core"
import { StoreConformance } from "@hookline/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PgliteStore, RunStore } from "../src/index.js"
import { join } from "node:path"
import { temporaryFolder } from "./support/folders.js"

// One folder for the whole file: a new folder's first open takes seconds.
const folder = temporaryFolder("pglite")
let store: RunStore.RunStore | undefined

beforeAll(async () => {
  store = await PgliteStore.open({ dataDir: folder.path })
}, 120_000)

afterAll(async () => {
  if (store !== undefined) await RunStore.close(store)
  folder.remove()
})

describe("PgliteStore", () => {
  StoreConformance.register(it, async () => store as RunStore.RunStore)

  it("keeps runs in its folder after it is closed and opened again", async () => {
    const state = AgentState.make({ id: "survivor", messages: [Message.user("still here?")] })
    await RunStore.save(store as RunStore.RunStore, state)
    await RunStore.close(store as RunStore.RunStore)
    store = await PgliteStore.open({ dataDir: folder.path })
    expect((await RunStore.load(store, "survivor"))?.state).toEqual(state)
  }, 120_000)

  it("makes the folders of a nested path that does not exist yet", async () => {
    const nested = temporaryFolder("pglite-nested")
    try {
      const deep = await PgliteStore.open({ dataDir: join(nested.path, "runs", "of", "today") })
      const state = AgentState.make({ id: "deep", messages: [Message.user("down here")] })
      await RunStore.save(deep, state)
      expect((await RunStore.load(deep, "deep"))?.state).toEqual(state)
      await RunStore.close(deep)
    } finally {
      nested.remove()
    }
  }, 120_000)
})
