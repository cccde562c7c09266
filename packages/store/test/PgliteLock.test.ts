// One owner per embedded store folder: two processes over one PGlite folder would each
// run PostgreSQL over the same files. Real processes: a holder is spawned, refused to a
// second opener, killed with SIGKILL, and its stale lock taken over.
import { AgentState, Message } from "@hookline/core"
import { spawn, type ChildProcess } from "node:child_process"
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PgliteStore, RunStore, StoreError } from "../src/index.js"
import { temporaryFolder } from "./support/folders.js"

const holder = fileURLToPath(new URL("./lock/holder.ts", import.meta.url))
const root = fileURLToPath(new URL("../../..", import.meta.url))

const start = (args: ReadonlyArray<string>): ChildProcess =>
  spawn(process.execPath, ["--conditions=@hookline/source", "--import", "tsx", holder, ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })

// Resolves once the child printed `line`; rejects if it exits first.
const printed = (child: ChildProcess, line: string): Promise<void> =>
  new Promise((resolve, reject) => {
    let out = ""
    let err = ""
    child.stdout?.on("data", (d) => {
      out += String(d)
      if (out.includes(`${line}\n`)) resolve()
    })
    child.stderr?.on("data", (d) => (err += String(d)))
    child.on("close", (code, signal) => reject(new Error(`the child ended (${code ?? signal}) before "${line}": ${err}`)))
  })

const exited = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.on("close", () => resolve())))

const failureOf = (promise: Promise<unknown>): Promise<unknown> => promise.then(() => undefined, (error: unknown) => error)

// One folder for the file: a new folder's first open takes seconds.
const folder = temporaryFolder("pglite-lock")

beforeAll(async () => {
  await RunStore.close(await PgliteStore.open({ dataDir: folder.path }))
}, 120_000)

afterAll(() => folder.remove())

describe("PgliteStore's folder lock", () => {
  it("refuses a second process at once, naming the folder and the holder's pid; takes over once the holder is killed", async () => {
    const child = start([folder.path, "hold"])
    try {
      await printed(child, "open")
      const refused = await failureOf(PgliteStore.open({ dataDir: folder.path }))
      expect(refused).toBeInstanceOf(StoreError.StoreFailed)
      expect((refused as Error).message).toContain(folder.path)
      expect((refused as Error).message).toContain(`process ${child.pid}`)
      child.kill("SIGKILL")
      await exited(child)
      // Its lock is still in the folder; no process of that pid is alive: stale.
      expect(existsSync(join(folder.path, "hookline.lock"))).toBe(true)
      const store = await PgliteStore.open({ dataDir: folder.path })
      await RunStore.save(store, AgentState.make({ id: "after-kill", messages: [Message.user("mine now")] }))
      await RunStore.close(store)
      expect(existsSync(join(folder.path, "hookline.lock"))).toBe(false)
    } finally {
      child.kill("SIGKILL")
      await exited(child)
    }
  }, 120_000)

  it("lets processes open the folder one after the other, as a command line does", async () => {
    for (const runId of ["first", "second"]) {
      const child = start([folder.path, "save", runId])
      await printed(child, "saved")
      await exited(child)
    }
    const store = await PgliteStore.open({ dataDir: folder.path })
    try {
      expect((await RunStore.load(store, "first"))?.state.context.messages.at(0)?.content).toMatch(/^saved by \d+$/)
      expect((await RunStore.load(store, "second"))?.state.id).toBe("second")
    } finally {
      await RunStore.close(store)
    }
  }, 120_000)

  it("refuses a second store over the folder in the same process, and frees the folder at close", async () => {
    const first = await PgliteStore.open({ dataDir: folder.path })
    try {
      const refused = await failureOf(PgliteStore.open({ dataDir: folder.path }))
      expect(refused).toBeInstanceOf(StoreError.StoreFailed)
      expect((refused as Error).message).toContain("open in this process already")
    } finally {
      await RunStore.close(first)
      await RunStore.close(first)
    }
    await RunStore.close(await PgliteStore.open({ dataDir: folder.path }))
  }, 120_000)

  it("takes over a lock file that names no live process, or none at all", async () => {
    for (const text of ["2147483646\nsome-token\n", "", "not a pid"]) {
      writeFileSync(join(folder.path, "hookline.lock"), text)
      const store = await PgliteStore.open({ dataDir: folder.path })
      await RunStore.close(store)
      expect(existsSync(join(folder.path, "hookline.lock"))).toBe(false)
    }
  }, 120_000)
})
