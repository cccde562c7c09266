// A process the crash test kills: it runs (or resumes) an agent whose tool appends to a
// side-effect log before it returns, checkpointing to the store named on the command
// line. Usage: child.ts <pglite|postgres> <dataDir|connectionString> <runId> <log> <run|resume>
import { AgentBuilder, Tool, UseDriver, UseGuards, UseTools } from "@hookline/agent"
import { AgentState, Codecs, Message } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import { Effect } from "effect"
import { appendFileSync } from "node:fs"
import * as t from "io-ts"
import { PgliteStore, PostgresStore, RunStore, UseCheckpoints } from "../../src/index.js"

const [kind, where, runId, log, mode] = process.argv.slice(2) as [string, string, string, string, string]

const pause = () => new Promise((resolve) => setTimeout(resolve, 5 + Math.floor(Math.random() * 15)))

const model = ScriptedDriver.make([
  ScriptedDriver.respond((request) => {
    const step = request.messages.toArray().filter((m) => m.role === "assistant").length
    if (step >= 4) return ScriptedDriver.text(`charged ${step * 2} times`)
    return ScriptedDriver.toolCalls([0, 1].map((j) => ({ id: crypto.randomUUID(), name: "charge", arguments: { amount: step * 10 + j } })))
  }),
], { repeatLast: true })

const charge = Tool.make({
  name: "charge",
  parameters: t.type({ amount: t.number }),
  execute: async ({ amount }, context) => {
    await pause()
    appendFileSync(log, JSON.stringify({ toolCallId: context.toolCall.id, key: context.idempotencyKey, amount }) + "\n")
    // The parent anchors its kill timer on these marks: kills land inside the run
    // however slow the machine is.
    process.stderr.write("effect\n")
    await pause()
    return { charged: amount }
  },
})

const opened = kind === "pglite" ? await PgliteStore.open({ dataDir: where }) : await PostgresStore.open({ connectionString: where })
// Says on stderr (synchronous on a pipe) each write the store acknowledged: the parent
// checks that every one of them survived the kill.
const store: RunStore.RunStore = {
  ...opened,
  commit: (commit) => Effect.tap(opened.commit(commit), () => Effect.sync(() => process.stderr.write(`commit:${commit.seq}\n`))),
  create: (commit, replace) =>
    Effect.tap(opened.create(commit, replace), () => Effect.sync(() => process.stderr.write(`commit:${commit.seq}\n`))),
  journalPut: (runId, key, body) =>
    Effect.tap(opened.journalPut(runId, key, body), () => Effect.sync(() => process.stderr.write(`journal:${key}\n`))),
}
try {
  const agent = AgentBuilder.make(UseDriver(model), UseTools([charge]), UseGuards({ maxSteps: 10 }), UseCheckpoints(store))
  // The parent starts its kill timer here, once the process is up and the store open.
  process.stderr.write("ready\n")
  const began = Date.now()
  // The killed process's lease outlives it (30 seconds by default). The parent saw it
  // die (SIGKILL, then its exit): it takes the run over knowingly, without waiting.
  if (mode === "resume") await RunStore.breakLease(store, runId)
  const final = mode === "run"
    ? await agent.run(AgentState.make({ id: runId, messages: [Message.user("charge me")] }))
    : await agent.resume(runId)
  process.stderr.write(`elapsed:${Date.now() - began}\n`)
  process.stdout.write(Codecs.toJson(Codecs.AgentState, final))
} finally {
  await RunStore.close(store)
}
