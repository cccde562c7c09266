#!/usr/bin/env node
// hookline-runner --agents ./agents.mjs --db postgres://… [--host 127.0.0.1] [--port 34431]
//   [--lock-expiration "10 seconds"] [--lock-refresh "3 seconds"] [--assignments-refresh "1 second"]
//   [--idle-eviction "1 minute"] [--message-poll "2 seconds"] [--max-resident 10000] [--termination-timeout "15 seconds"]
//   [--shards-per-group 300] [--replies-wait-for-flush false]
// A duration is "<number> <unit>" or a number of milliseconds; a bad one exits 2 naming the
// flag, as an --agents path that names no file does.
// A --shards-per-group other than the live runners' exits 2 naming both counts; a stored
// settings record that is not one (hookline_cluster_settings) exits 2 naming its row and field.
// The agents module's default export (or `agents`) is an array of ClusterAgent. SIGTERM
// or SIGINT shuts the runner down gracefully: its shards go to the other runners and its
// runs are checkpointed `running` for them.
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Result, Runtime } from "effect"
import { statSync } from "node:fs"
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { parseArgs } from "node:util"
import type { ClusterAgent } from "../ClusterAgent.js"
import * as Runner from "../Runner.js"
import * as Settings from "../Settings.js"

const fail = (message: string): never => {
  process.stderr.write(`hookline-runner: ${message}\n`)
  process.exit(2)
}

const { values } = (() => {
  try {
    return parseArgs({
      options: {
        agents: { type: "string" },
        db: { type: "string" },
        host: { type: "string" },
        port: { type: "string" },
        ...Object.fromEntries(Object.keys(Settings.flags).map((flag) => [flag, { type: "string" as const }])),
      },
    })
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error))
  }
})()

// Every flag is checked before anything starts: no agents loaded, no database reached.
const agentsPath = values.agents ?? fail("--agents <module> is required")
const database = values.db ?? process.env["HOOKLINE_DATABASE_URL"] ?? fail("--db <postgres url> is required")
const port = values.port === undefined ? undefined : Number(values.port)
if (port !== undefined && (!Number.isInteger(port) || port <= 0 || port > 65_535)) fail(`--port: expected a port number, got ${values.port}`)
const checked = Settings.fromFlags(values as Record<string, string | undefined>)
const settings = Result.isFailure(checked) ? fail(checked.failure.message) : checked.success

// A path that names no file is a bad flag (one line, exit 2); a module that is there and
// fails to load throws with its stack, as its own bug should.
const agentsFile = resolve(agentsPath)
if (statSync(agentsFile, { throwIfNoEntry: false })?.isFile() !== true) fail(`--agents: no module file at ${JSON.stringify(agentsFile)}`)
const loaded = (await import(pathToFileURL(agentsFile).href)) as { readonly default?: unknown; readonly agents?: unknown }
const agents = loaded.default ?? loaded.agents
if (!Array.isArray(agents) || !agents.every((a) => typeof a === "object" && a !== null && (a as { _tag?: unknown })._tag === "ClusterAgent")) {
  fail(`${agentsPath}: expected an array of ClusterAgent as its default export (or \`agents\`)`)
}

const host = values.host ?? "127.0.0.1"
const runner = Runner.layer({ agents: agents as ReadonlyArray<ClusterAgent>, database, host, port, settings })

Effect.scoped(Effect.gen(function*() {
  // A shared setting other than the live runners' (Settings.SettingsMismatch), or a
  // stored record of theirs that is not one (Settings.InvalidSetting naming the row and
  // its field), is the user's to fix, as a bad flag is: the same exit, nothing started.
  yield* Effect.catchTag(Layer.build(runner), ["SettingsMismatch", "InvalidSetting"], (error) =>
    Effect.andThen(
      Effect.sync(() => process.stderr.write(`hookline-runner: ${error.message}\n`)),
      Effect.fail({ [Runtime.errorExitCode]: 2, [Runtime.errorReported]: true }),
    ))
  process.stderr.write(`hookline-runner ready ${host}:${port ?? 34431} pid ${process.pid}\n`)
  return yield* Effect.never
})).pipe(NodeRuntime.runMain)
