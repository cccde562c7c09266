/**
 * LangGraph checkpointed: LangChain's `createAgent` (a LangGraph graph) with the
 * comparison's fake chat model (systems/langchain.ts's StepModel) and an `echo` tool,
 * K = 0, compiled with a checkpointer: `MemorySaver` or `PostgresSaver`
 * (@langchain/langgraph-checkpoint-postgres, on the parent's embedded PostgreSQL, in a
 * schema of its own). Each run is a new `thread_id`; LangGraph's default durability
 * ("async": a step's checkpoint is written while the next step runs, awaited at the end
 * of the run). Bytes, read after the run (untimed): MemorySaver, the byte length of every
 * serialized checkpoint, metadata and pending write it holds for the thread;
 * PostgresSaver, the octet length of the thread's rows in checkpoints (checkpoint and
 * metadata JSON), checkpoint_blobs (blob) and checkpoint_writes (blob).
 */
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph"
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres"
import { createAgent, tool } from "langchain"
import pg from "pg"
import { z } from "zod"
import { seedOf, StepModel } from "../../systems/langchain.js"
import { versionOf } from "../../Version.js"
import { finalLength, modelCalled, modelWait, toolCalled, type DurableSystem, type OpenedStore } from "../Durable.js"

for (const name of ["LANGCHAIN_TRACING_V2", "LANGCHAIN_TRACING", "LANGSMITH_TRACING", "LANGSMITH_TRACING_V2"]) delete process.env[name]

const schema = "langgraph_bench"

/** MemorySaver: the bytes it holds for a thread (its storage and writes are keyed by thread). */
const memoryBytes = (saver: MemorySaver, thread: string): number => {
  let bytes = 0
  for (const byNs of Object.values(saver.storage[thread] ?? {})) {
    for (const [checkpoint, metadata] of Object.values(byNs)) bytes += checkpoint.byteLength + metadata.byteLength
  }
  for (const [key, byWrite] of Object.entries(saver.writes)) {
    if (!key.includes(thread)) continue
    for (const [, , value] of Object.values(byWrite)) bytes += value.byteLength
  }
  return bytes
}

const postgresBytes = async (pool: pg.Pool, thread: string): Promise<number> => {
  const { rows } = await pool.query<{ bytes: string }>(
    `SELECT
       (SELECT coalesce(sum(octet_length(checkpoint::text) + octet_length(metadata::text)), 0) FROM ${schema}.checkpoints WHERE thread_id = $1)
     + (SELECT coalesce(sum(octet_length(blob)), 0) FROM ${schema}.checkpoint_blobs WHERE thread_id = $1)
     + (SELECT coalesce(sum(octet_length(blob)), 0) FROM ${schema}.checkpoint_writes WHERE thread_id = $1) AS bytes`,
    [thread],
  )
  return Number(rows[0]?.bytes ?? 0)
}

const open: DurableSystem["open"] = async (store, settings): Promise<OpenedStore> => {
  let saver: BaseCheckpointSaver
  let bytesOf: (thread: string) => Promise<number>
  let close: () => Promise<void>
  let bytesHow: string
  if (store === "memory") {
    const memory = new MemorySaver()
    saver = memory
    bytesOf = async (thread) => memoryBytes(memory, thread)
    close = async () => undefined
    bytesHow = "byte length of the thread's serialized checkpoints, metadata and writes held by MemorySaver"
  } else if (store === "postgres") {
    if (settings.connectionString === undefined) throw new Error("no PostgreSQL: the parent could not start one")
    const pool = new pg.Pool({ connectionString: settings.connectionString, max: 2 })
    await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`)
    const postgres = PostgresSaver.fromConnString(settings.connectionString, { schema })
    await postgres.setup()
    saver = postgres
    bytesOf = (thread) => postgresBytes(pool, thread)
    close = async () => {
      await postgres.end()
      await pool.end()
    }
    bytesHow = "octet length of the thread's rows: checkpoints (checkpoint + metadata JSON), checkpoint_blobs, checkpoint_writes"
  } else {
    throw new Error(`LangGraph has no saver ${JSON.stringify(store)} here`)
  }
  return {
    saver: store === "memory" ? "MemorySaver" : "PostgresSaver",
    bytesHow,
    close,
    prepare: async (H, steps) => {
      const seed = seedOf(H)
      const echo = tool(
        ({ i }) => {
          toolCalled()
          return i
        },
        { name: "echo", description: "Echoes i", schema: z.object({ i: z.number() }) },
      )
      const wait = modelWait()
      const onCall = wait === undefined ? modelCalled : async () => {
        modelCalled()
        await wait()
      }
      const agent = createAgent({ model: new StepModel(seed.length, steps, false, onCall), tools: [echo], checkpointer: saver })
      const recursionLimit = 2 * (steps + 1) * 2 + 100
      const config = (id: string) => ({ configurable: { thread_id: id } })
      return {
        before: async () => undefined,
        run: async (id) => {
          const result = await agent.invoke({ messages: [...seed] }, { ...config(id), recursionLimit })
          return result.messages.at(-1)?.text ?? ""
        },
        after: async (id, count) => {
          let bytes = 0
          if (count) {
            const stored = await agent.graph.getState(config(id))
            const messages = (stored.values as { messages?: ReadonlyArray<unknown> }).messages?.length ?? 0
            if (messages !== finalLength(H, steps)) throw new Error(`the thread ${id} reads back with ${messages} messages, expected ${finalLength(H, steps)}`)
            bytes = await bytesOf(id)
          }
          await saver.deleteThread(id)
          return bytes
        },
      }
    },
  }
}

export const system: DurableSystem = { name: "langgraph", version: versionOf("@langchain/langgraph"), open }
