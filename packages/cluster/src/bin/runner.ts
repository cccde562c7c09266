#!/usr/bin/env node
// hookline-runner --agents ./agents.mjs --db postgres://… [--host 127.0.0.1] [--port 34431]
//   [--lock-expiration "10 seconds"] [--lock-refresh "3 seconds"] [--assignments-refresh "1 second"]
//   [--idle-eviction "1 minute"] [--max-resident 10000] [--termination-timeout "15 seconds"]
// The agents module's default export (or `agents`) is an array of ClusterAgent. SIGTERM
// or SIGINT shuts the runner down gracefully: its shards go to the other runners and its
// runs are checkpointed `running` for them.
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { parseArgs } from "node:util"
import type { ClusterAgent } from "../ClusterAgent.js"
import * as Runner from "../Runner.js"
import type { Settings } from "../Settings.js"

const { values } = parseArgs({
  options: {
    agents: { type: "string" },
    db: { type: "string" },
    host: { type: "string" },
    port: { type: "string" },
    "lock-expiration": { type: "string" },
    "lock-refresh": { type: "string" },
    "assignments-refresh": { type: "string" },
    "idle-eviction": { type: "string" },
    "max-resident": { type: "string" },
    "termination-timeout": { type: "string" },
  },
})

const fail = (message: string): never => {
  process.stderr.write(`hookline-runner: ${message}\n`)
  process.exit(2)
}

const agentsPath = values.agents ?? fail("--agents <module> is required")
const database = values.db ?? process.env["HOOKLINE_DATABASE_URL"] ?? fail("--db <postgres url> is required")
const port = values.port === undefined ? undefined : Number(values.port)
if (port !== undefined && (!Number.isInteger(port) || port <= 0 || port > 65_535)) fail(`--port: expected a port number, got ${values.port}`)

const loaded = (await import(pathToFileURL(resolve(agentsPath)).href)) as { readonly default?: unknown; readonly agents?: unknown }
const agents = loaded.default ?? loaded.agents
if (!Array.isArray(agents) || !agents.every((a) => typeof a === "object" && a !== null && (a as { _tag?: unknown })._tag === "ClusterAgent")) {
  fail(`${agentsPath}: expected an array of ClusterAgent as its default export (or \`agents\`)`)
}

const settings: Partial<Settings> = {
  ...(values["lock-expiration"] === undefined ? {} : { lockExpiration: values["lock-expiration"] as never }),
  ...(values["lock-refresh"] === undefined ? {} : { lockRefresh: values["lock-refresh"] as never }),
  ...(values["assignments-refresh"] === undefined ? {} : { assignmentsRefresh: values["assignments-refresh"] as never }),
  ...(values["idle-eviction"] === undefined ? {} : { idleEviction: values["idle-eviction"] as never }),
  ...(values["max-resident"] === undefined ? {} : { maxResidentEntities: Number(values["max-resident"]) }),
  ...(values["termination-timeout"] === undefined ? {} : { terminationTimeout: values["termination-timeout"] as never }),
}

const host = values.host ?? "127.0.0.1"
const runner = Runner.layer({ agents: agents as ReadonlyArray<ClusterAgent>, database, host, port, settings })

Effect.scoped(Effect.gen(function*() {
  yield* Layer.build(runner)
  process.stderr.write(`hookline-runner ready ${host}:${port ?? 34431} pid ${process.pid}\n`)
  return yield* Effect.never
})).pipe(NodeRuntime.runMain)
