/**
 * The MCP benchmark (issue 27): what an MCP server adds to a run, pooled and not.
 *
 * Every run is the same two steps through the Promise facade: a fake model asks for one
 * tool call, then answers with text. The cases differ in the tool only:
 * - local: a tool of the agent (`Tool.make`) that answers at once: the run without MCP;
 * - call alone: one `tools/call` to an open stdio connection, no run around it;
 * - call in a local tool: a tool of the agent that makes that `tools/call` itself: a run
 *   with the same wait for the server and no MCP machinery (what the pool is compared with);
 * - pooled: `UseMcp(server, { pool })`, after the pool's first run started the server;
 * - unpooled: `UseMcp(server)`, which starts the server, handshakes and lists its tools
 *   for each run, and ends it when the run ends;
 * - pooled, first run: a new pool each time, so the run starts the server.
 * The server is a real stdio MCP server made with the official SDK (node, a child
 * process). MCP overhead per run = median run - median local run - median call alone:
 * what the run pays beyond the call itself (the measure; it includes what any
 * run that waits on a child process pays for the wait, which the "call in a local tool"
 * row shows without MCP). Target: <= 1 ms pooled.
 *
 * Timed with the wall clock (`performance.now`), rounds interleaving the cases, medians
 * over every run of a case.
 */
import { fileURLToPath } from "node:url"
import { AgentBuilder, type Agent, Driver, Tool, UseDriver, UseTools } from "@hookline/agent"
import { type InferenceResponse, ToolCall, InferenceResponse as Response } from "@hookline/core"
import { McpConnection, McpPool, McpServer, UseMcp } from "@hookline/mcp"
import * as t from "io-ts"
import { quantile } from "./measure.js"
import { formatRatio, print, type Column } from "./table.js"

/** The pool's test server: one place for a real stdio MCP server in this repository. */
const serverScript = fileURLToPath(new URL("../../packages/mcp/test/support/poolServer.mjs", import.meta.url))
const server = McpServer.stdio({ name: "bench", command: process.execPath, args: [serverScript] })

/** Target of the issue: pooled MCP overhead per run, beyond the tool call. */
export const overheadTargetMs = 1

export interface McpSettings {
  readonly quick: boolean
  readonly warmup: number
  readonly rounds: number
  /** Runs per round of the fast cases (local, call alone, pooled). */
  readonly runsPerRound: number
  /** Runs per round of the cases that start a server each run. */
  readonly coldPerRound: number
}

/** `BENCH_SMOKE=1`: the comparison's smoke (every case run and validated twice, figures meaningless). */
export const mcpSettingsFromEnv = (env: NodeJS.ProcessEnv = process.env): McpSettings =>
  env["BENCH_SMOKE"] === "1"
    ? { quick: true, warmup: 1, rounds: 1, runsPerRound: 2, coldPerRound: 1 }
    : env["BENCH_QUICK"] === "1"
      ? { quick: true, warmup: 20, rounds: 2, runsPerRound: 50, coldPerRound: 2 }
      : { quick: false, warmup: 200, rounds: 6, runsPerRound: 300, coldPerRound: 3 }

const script: ReadonlyArray<InferenceResponse> = [
  Response.make({ toolCalls: [ToolCall.make({ id: "call-1", name: "pid", arguments: {} })] }),
  Response.make({ text: "done" }),
]

const model = Driver.fromPromise({
  generate: async (request) => script[request.messages.length === 1 ? 0 : 1]!,
})

const local = Tool.make({ name: "pid", description: "This process's id", parameters: t.type({}), execute: async () => String(process.pid) })

const agentWith = (...capabilities: ReadonlyArray<AgentBuilder.Capability>): Agent => AgentBuilder.make(UseDriver(model), ...capabilities)

// One run; throws unless it called the tool and completed.
const runOnce = async (agent: Agent): Promise<void> => {
  const final = await agent.run("go")
  if (final.execution.status !== "completed" || final.execution.errors.length > 0) {
    throw new Error(`the run ended ${final.execution.status}: ${final.execution.errors.map((e) => e.message).join("; ")}`)
  }
}

interface Row {
  readonly case: string
  readonly runs: number
  readonly p10: number
  readonly p50: number
  readonly p90: number
  readonly overhead: number | undefined
}

const timeMs = async (f: () => Promise<void>): Promise<number> => {
  const started = performance.now()
  await f()
  return performance.now() - started
}

export const mcpBench = async (settings: McpSettings, progress: (line: string) => void): Promise<void> => {
  const pool = McpPool.make()
  const connection = await McpConnection.open(server)
  try {
    const call = connection.tools().find((tool) => tool.name === "pid")!
    // A signal per call, as the loop gives each call its own.
    const context = () => ({ signal: new AbortController().signal, idempotencyKey: "bench:pid" }) as Tool.ToolContext
    // Built once, as an application builds its agent.
    const localAgent = agentWith(UseTools([local]))
    const viaLocal = Tool.make({
      name: "pid",
      description: "The server's process id, through a direct connection",
      parameters: t.type({}),
      execute: async (_args, toolContext) => call.run({}, toolContext),
    })
    const wrappedAgent = agentWith(UseTools([viaLocal]))
    const pooledAgent = agentWith(UseMcp(server, { pool }))
    const unpooledAgent = agentWith(UseMcp(server))
    const cases: ReadonlyArray<{ readonly name: string; readonly cold: boolean; readonly once: () => Promise<void> }> = [
      { name: "local tool (no MCP)", cold: false, once: () => runOnce(localAgent) },
      { name: "tools/call alone (open connection, no run)", cold: false, once: async () => void (await call.run({}, context())) },
      { name: "call in a local tool (no UseMcp)", cold: false, once: () => runOnce(wrappedAgent) },
      { name: "pooled: UseMcp(server, { pool })", cold: false, once: () => runOnce(pooledAgent) },
      {
        name: "pooled, agent built per run",
        cold: false,
        once: () => runOnce(agentWith(UseMcp(server, { pool }))),
      },
      { name: "unpooled: UseMcp(server)", cold: true, once: () => runOnce(unpooledAgent) },
      {
        name: "pooled, first run (a new pool)",
        cold: true,
        once: async () => {
          const fresh = McpPool.make()
          try {
            await runOnce(agentWith(UseMcp(server, { pool: fresh })))
          } finally {
            await fresh.close()
          }
        },
      },
    ]
    progress(`mcp: warm-up (${settings.warmup} runs of each fast case)`)
    for (const c of cases) {
      for (let i = 0; i < (c.cold ? 1 : settings.warmup); i++) await c.once()
    }
    const samples = new Map<string, Array<number>>(cases.map((c) => [c.name, []]))
    for (let round = 0; round < settings.rounds; round++) {
      progress(`mcp: round ${round + 1}/${settings.rounds}`)
      for (const c of cases) {
        const into = samples.get(c.name)!
        for (let i = 0; i < (c.cold ? settings.coldPerRound : settings.runsPerRound); i++) into.push(await timeMs(c.once))
      }
    }
    const summary = (name: string) => {
      const sorted = [...samples.get(name)!].sort((a, b) => a - b)
      return { runs: sorted.length, p10: quantile(sorted, 0.1), p50: quantile(sorted, 0.5), p90: quantile(sorted, 0.9) }
    }
    const base = summary(cases[0]!.name).p50
    const callAlone = summary(cases[1]!.name).p50
    const rows: ReadonlyArray<Row> = cases.map((c, i) => {
      const s = summary(c.name)
      return { case: c.name, ...s, overhead: i < 2 ? undefined : s.p50 - base - callAlone }
    })
    const pooled = rows[3]!.overhead!
    const unpooled = rows[5]!.overhead!
    const poolOwn = rows[3]!.p50 - rows[2]!.p50

    console.log(`# MCP benchmark: a run's overhead against a stdio server${settings.quick ? " (BENCH_QUICK=1: indicative only)" : ""}`)
    console.log("")
    console.log(
      `A two-step run (one tool call, then text) through the Promise facade; ${settings.rounds} rounds interleaving the cases, ` +
        `${settings.runsPerRound} runs of each fast case and ${settings.coldPerRound} of each cold case per round; ms per run (wall clock).`,
    )
    console.log("MCP overhead per run = median run - median local run - median tools/call alone.")
    console.log("")
    const fmt = (ms: number): string => (ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3))
    const columns: ReadonlyArray<Column<Row>> = [
      { header: "case", cell: (r) => r.case },
      { header: "runs", align: "right", cell: (r) => String(r.runs) },
      { header: "ms per run p50 (p10–p90)", align: "right", cell: (r) => `${fmt(r.p50)} (${fmt(r.p10)}–${fmt(r.p90)})` },
      { header: "MCP overhead ms/run", align: "right", cell: (r) => (r.overhead === undefined ? "–" : fmt(r.overhead)) },
    ]
    print(columns, rows)
    console.log("")
    console.log(
      `pooled overhead ${fmt(pooled)} ms per run (target <= ${overheadTargetMs} ms): ${pooled <= overheadTargetMs ? "met" : "NOT met"}; ` +
        `unpooled ${fmt(unpooled)} ms; an unpooled run takes ${formatRatio(rows[5]!.p50 / rows[3]!.p50)} the pooled run; ` +
        `the pooled run against the same call made by a local tool: ${poolOwn >= 0 ? "+" : ""}${fmt(poolOwn)} ms`,
    )
  } finally {
    await connection.close()
    await pool.close()
  }
}
