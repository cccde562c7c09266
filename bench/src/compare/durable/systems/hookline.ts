/**
 * hookline checkpointed: the user path (UserPath.ts: AgentBuilder agent, Promise facade,
 * async model and tool, default guards, K = 0) with `UseCheckpoints(store)` on
 * MemoryStore, PgliteStore (a temporary folder) or PostgresStore (the parent's embedded
 * PostgreSQL, fsync on; "postgres-unflushed": with `waitForFlush: false`). Bytes: the UTF-8 length of every body handed to the store
 * (checkpoints and journal entries), counted at the store's door (store.ts's `counted`).
 */
import { AgentState, Message } from "@hookline/core"
import { MemoryStore, PgliteStore, PostgresStore, RunStore, UseCheckpoints } from "@hookline/store"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { history, responses, stepOf } from "../../../loop.js"
import { counted, type Tally } from "../../../store.js"
import * as UserPath from "../../../UserPath.js"
import { outcome } from "../../systems/hookline.js"
import { versionOf } from "../../Version.js"
import { finalLength, modelCalled, modelWait, toolCalled, type DurableSystem, type OpenedStore } from "../Durable.js"

const openStore = async (store: string, connectionString: string | undefined): Promise<{ readonly inner: RunStore.RunStore; readonly saver: string; readonly cleanup: () => void }> => {
  switch (store) {
    case "memory":
      return { inner: MemoryStore.make(), saver: "MemoryStore", cleanup: () => undefined }
    case "pglite": {
      const folder = mkdtempSync(join(tmpdir(), "hookline-bench-durable-"))
      try {
        return { inner: await PgliteStore.open({ dataDir: folder }), saver: "PgliteStore", cleanup: () => rmSync(folder, { recursive: true, force: true }) }
      } catch (e) {
        rmSync(folder, { recursive: true, force: true })
        throw e
      }
    }
    case "postgres":
      if (connectionString === undefined) throw new Error("no PostgreSQL: the parent could not start one")
      return { inner: await PostgresStore.open({ connectionString }), saver: "PostgresStore", cleanup: () => undefined }
    // The explicit option that acknowledges before the flush (synchronous_commit = off on
    // the store's connections): what a run costs without the disk's waits.
    case "postgres-unflushed":
      if (connectionString === undefined) throw new Error("no PostgreSQL: the parent could not start one")
      return { inner: await PostgresStore.open({ connectionString, waitForFlush: false }), saver: "PostgresStore (waitForFlush: false)", cleanup: () => undefined }
    default:
      throw new Error(`hookline has no store ${JSON.stringify(store)}`)
  }
}

const open: DurableSystem["open"] = async (store, settings): Promise<OpenedStore> => {
  const { inner, saver, cleanup } = await openStore(store, settings.connectionString)
  const tally: Tally = { counting: false, checkpoints: [], journal: 0 }
  const target = counted(inner, tally)
  return {
    saver,
    bytesHow: "UTF-8 bytes of every checkpoint and journal body handed to the store",
    close: async () => {
      await RunStore.close(inner).catch(() => undefined)
      cleanup()
    },
    prepare: async (H, steps) => {
      const seed = [...history(H), Message.user("go")]
      const agent = UserPath.agent({
        script: responses(steps),
        stepOf: (messages) => stepOf(messages, seed.length),
        K: 0,
        observer: () => (ctx) => ctx,
        onModel: modelCalled,
        onTool: toolCalled,
        tick: modelWait(),
        capabilities: [UseCheckpoints(target)],
      })
      // The state a run starts from, made before it (AgentState.make freezes every message).
      const inputs = new Map<string, AgentState>()
      return {
        before: async (id) => {
          inputs.set(id, AgentState.make({ id, messages: seed }))
        },
        run: async (id, count) => {
          const input = inputs.get(id) as AgentState
          inputs.delete(id)
          tally.checkpoints = []
          tally.journal = 0
          tally.counting = count
          try {
            return outcome(await agent.run(input))
          } finally {
            tally.counting = false
          }
        },
        after: async (id, count) => {
          if (count) {
            const saved = await RunStore.load(target, id)
            if (saved === undefined || saved.state.execution.status !== "completed" || saved.state.context.messages.length !== finalLength(H, steps)) {
              throw new Error(`the stored run ${id} does not read back as the final state (${saved === undefined ? "none" : `${saved.state.execution.status}, ${saved.state.context.messages.length} messages`})`)
            }
          }
          await Effect.runPromise(target.remove(id))
          return tally.checkpoints.reduce((a, b) => a + b, 0) + tally.journal
        },
      }
    },
  }
}

export const system: DurableSystem = { name: "hookline", version: versionOf("@hookline/agent"), open }
