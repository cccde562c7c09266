/**
 * hookline checkpointed: the user path (UserPath.ts: AgentBuilder agent, Promise facade,
 * async model and tool, default guards, K = 0) with `UseCheckpoints(store)` on
 * MemoryStore, PgliteStore (a temporary folder) or PostgresStore (the parent's embedded
 * PostgreSQL, fsync on; "postgres-unflushed": with `waitForFlush: false`), or without a
 * store ("none": the row the store rows add to). Timed runs get the store as opened.
 * Bytes: the UTF-8 length of every body handed to the store (checkpoints and journal
 * entries), counted at the store's door (store.ts's `counted`) in the counting run only.
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

const openStore = async (store: string, connectionString: string | undefined): Promise<{ readonly inner: RunStore.RunStore | undefined; readonly saver: string; readonly cleanup: () => void }> => {
  switch (store) {
    // The same agent without UseCheckpoints: what the store rows add to.
    case "none":
      return { inner: undefined, saver: "none (no UseCheckpoints)", cleanup: () => undefined }
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

/**
 * The rows' cases over a store already open (`inner`, the very object a user passes to
 * `UseCheckpoints`; undefined: the same agent without a store); `close` closes it.
 * The timed runs go through `inner` itself: a store built around it (a counting wrapper,
 * a spread copy) does not keep what the store registers by its identity (MemoryStore's
 * operations that answer at once, the SQL stores' one-statement ending and combined
 * read) and would time another path. Only the counting run (the first warm-up, untimed)
 * goes through the counting wrapper, on an agent of its own.
 */
export const over = (inner: RunStore.RunStore | undefined, saver: string, close: () => Promise<void>): OpenedStore => {
  const tally: Tally = { counting: true, checkpoints: [], journal: 0 }
  const counting = inner === undefined ? undefined : counted(inner, tally)
  return {
    saver,
    bytesHow: inner === undefined ? "nothing: the same agent without UseCheckpoints has no store" : "UTF-8 bytes of every checkpoint and journal body handed to the store, counted in an untimed run of the same agent through a counting wrapper",
    close,
    prepare: async (H, steps) => {
      const seed = [...history(H), Message.user("go")]
      const agentOn = (store: RunStore.RunStore | undefined) =>
        UserPath.agent({
          script: responses(steps),
          stepOf: (messages) => stepOf(messages, seed.length),
          K: 0,
          observer: () => (ctx) => ctx,
          onModel: modelCalled,
          onTool: toolCalled,
          tick: modelWait(),
          capabilities: store === undefined ? [] : [UseCheckpoints(store)],
        })
      const timed = agentOn(inner)
      const countingAgent = counting === undefined ? timed : agentOn(counting)
      // The state a run starts from, made before it (AgentState.make freezes every message).
      const inputs = new Map<string, AgentState>()
      return {
        before: async (id) => {
          inputs.set(id, AgentState.make({ id, messages: seed }))
        },
        run: async (id, count) => {
          const input = inputs.get(id) as AgentState
          inputs.delete(id)
          if (!count) return outcome(await timed.run(input))
          tally.checkpoints = []
          tally.journal = 0
          return outcome(await countingAgent.run(input))
        },
        after: async (id, count) => {
          if (inner === undefined) return 0
          if (count) {
            const saved = await RunStore.load(inner, id)
            if (saved === undefined || saved.state.execution.status !== "completed" || saved.state.context.messages.length !== finalLength(H, steps)) {
              throw new Error(`the stored run ${id} does not read back as the final state (${saved === undefined ? "none" : `${saved.state.execution.status}, ${saved.state.context.messages.length} messages`})`)
            }
          }
          await Effect.runPromise(inner.remove(id))
          return count ? tally.checkpoints.reduce((a, b) => a + b, 0) + tally.journal : 0
        },
      }
    },
  }
}

const open: DurableSystem["open"] = async (store, settings): Promise<OpenedStore> => {
  const { inner, saver, cleanup } = await openStore(store, settings.connectionString)
  return over(inner, saver, async () => {
    if (inner !== undefined) await RunStore.close(inner).catch(() => undefined)
    cleanup()
  })
}

export const system: DurableSystem = { name: "hookline", version: versionOf("@hookline/agent"), open }
