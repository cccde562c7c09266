// The stores' database libraries are optional peers: a missing one is a PeerMissing
// naming the package to install. The dist's real behaviour (a fresh install without pg)
// is checked by scripts/smoke-install.mjs; here, Node's own errors for a package that
// is not installed, by import and by require.
import { createRequire } from "node:module"
import { describe, expect, it } from "vitest"
import { StoreError } from "@hookline/store"
import { importPeer } from "../src/internal/peer.js"

const notInstalled = "hookline-peer-that-is-not-installed"

describe("importPeer", () => {
  it("turns Node's not-installed error for the peer into PeerMissing, by import and by require", async () => {
    const require = createRequire(import.meta.url)
    for (const load of [() => import(notInstalled), async () => require(notInstalled) as unknown]) {
      const error = await importPeer(notInstalled, "SomeStore", load).then(() => undefined, (e: unknown) => e)
      expect(error).toBeInstanceOf(StoreError.PeerMissing)
      expect(error).toMatchObject({
        _tag: "PeerMissing",
        peer: notInstalled,
        store: "SomeStore",
        message: `SomeStore needs the package ${notInstalled}, an optional peer of @hookline/store that is not installed: npm install ${notInstalled}`,
      })
    }
  })

  it("passes on any other failure as it is, a missing package of the peer's own included", async () => {
    const broken = new Error("boom")
    await expect(importPeer("pg", "PostgresStore", () => Promise.reject(broken))).rejects.toBe(broken)
    const inner = Object.assign(new Error("Cannot find package 'pg-types' imported from /x/pg/index.js"), { code: "ERR_MODULE_NOT_FOUND" })
    await expect(importPeer("pg", "PostgresStore", () => Promise.reject(inner))).rejects.toBe(inner)
  })

  it("gives the loaded module when it is there", async () => {
    const module = { ok: true }
    expect(await importPeer("pg", "PostgresStore", async () => module)).toBe(module)
  })
})
