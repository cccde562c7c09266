// A runner's effect/cluster storage across a crash of PostgreSQL (an immediate shutdown:
// the WAL not yet flushed is lost): what the runner sends is stored on connections that
// wait for the flush, so it is read back after the crash; its replies and its marks of
// messages read do not wait, so the last of them can be lost, and the message is then
// unprocessed again, to be handled again. With `waitForFlush` every commit waits.
import { NodeCrypto } from "@effect/platform-node"
import { Effect, Layer, type Scope } from "effect"
import type { MessageStorage } from "effect/cluster"
import { SqlClient } from "effect/sql"
import { describe, expect, it } from "vitest"
import { crashableServer } from "../../store/test/support/crashableServer.js"
import { encodedStorage, flushingSqlLayer } from "../src/internal/storage.js"

const server = crashableServer()
const connectionString = () => server().connectionString

let nextId = 1_000
type Saved = Parameters<MessageStorage.Encoded["saveEnvelope"]>[0]
const request = (entityId: string): Saved => {
  const requestId = String(nextId++)
  return {
    envelope: {
      _tag: "Request",
      requestId,
      address: { shardId: { group: "default", id: 1 }, entityType: "HooklineRun", entityId },
      tag: "Start",
      payload: { agent: "charger", input: "go" },
      headers: {},
    },
    primaryKey: `HooklineRun/${entityId}/Start`,
    deliverAt: null,
  } as Saved
}

// The storage as a runner opens it, used by `f`, then closed.
const withStorage = <A>(waitForFlush: boolean, f: (storage: MessageStorage.Encoded) => Effect.Effect<A, unknown, Scope.Scope | SqlClient.SqlClient>) =>
  Effect.runPromise(
    Effect.scoped(Effect.flatMap(encodedStorage(connectionString(), { waitForFlush }), f)).pipe(
      Effect.provide(Layer.merge(flushingSqlLayer(connectionString(), 2), NodeCrypto.layerDigest)),
    ),
  )

// The message row of a request as PostgreSQL holds it now, read on a fresh connection.
const row = (requestId: string) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ readonly processed: boolean; readonly read: boolean; readonly replies: number }>`
        SELECT processed, last_read IS NOT NULL AS read, (SELECT count(*)::int FROM cluster_replies WHERE request_id = ${requestId}) AS replies
        FROM cluster_messages WHERE id = ${requestId}`
      return rows[0]
    }).pipe(Effect.provide(flushingSqlLayer(connectionString(), 1))),
  )

const reply = (requestId: string) => ({ _tag: "WithExit" as const, requestId, id: String(nextId++), exit: { _tag: "Success" as const, value: { ok: true } } })

describe("a runner's cluster storage across a PostgreSQL crash", () => {
  it("keeps a sent request and loses the reply and read mark made after it, which leaves the request to be handled again", async () => {
    const sent = request("crash-1")
    const requestId = sent.envelope.requestId
    await withStorage(false, (storage) =>
      Effect.gen(function*() {
        yield* storage.saveEnvelope(sent)
        const read = yield* storage.unprocessedMessages(["default:1"], Date.now())
        expect(read.map((m) => m.envelope.requestId)).toContain(requestId)
        yield* storage.saveReply(reply(requestId))
      }))
    expect(await row(requestId)).toEqual({ processed: true, read: true, replies: 1 })
    await server().crash()
    // The request is there; its read mark and its reply are not: unprocessed, unread.
    expect(await row(requestId)).toEqual({ processed: false, read: false, replies: 0 })
    // A runner's next read finds it again.
    const again = await withStorage(false, (storage) => storage.unprocessedMessages(["default:1"], Date.now()))
    expect(again.map((m) => m.envelope.requestId)).toContain(requestId)
  }, 120_000)

  it("keeps every reply and read mark across the crash with waitForFlush", async () => {
    const sent = request("crash-2")
    const requestId = sent.envelope.requestId
    await withStorage(true, (storage) =>
      Effect.gen(function*() {
        yield* storage.saveEnvelope(sent)
        yield* storage.unprocessedMessages(["default:1"], Date.now())
        yield* storage.saveReply(reply(requestId))
      }))
    await server().crash()
    expect(await row(requestId)).toEqual({ processed: true, read: true, replies: 1 })
  }, 120_000)

  it("stores a reply inside effect/cluster's transaction on the transaction's connection", async () => {
    const sent = request("crash-3")
    const requestId = sent.envelope.requestId
    const inside = await withStorage(false, (storage) =>
      Effect.gen(function*() {
        yield* storage.saveEnvelope(sent)
        const sql = yield* SqlClient.SqlClient
        // Rolled back: a reply saved on another connection would stay.
        return yield* storage.withTransaction(Effect.gen(function*() {
          yield* storage.saveReply(reply(requestId))
          return yield* Effect.fail("rolled back" as const)
        })).pipe(Effect.flip, Effect.tap(() => sql`SELECT 1`))
      }))
    expect(inside).toBe("rolled back")
    expect(await row(requestId)).toEqual({ processed: false, read: false, replies: 0 })
  }, 120_000)
})
