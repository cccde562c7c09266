// The person's decision, in a new process: `approve <runId>`, `edit <runId> <amount>`
// or `reject <runId> <message>`. Loads the suspended run from the embedded store,
// decides every call it waits on, and resumes it to the end.
import { Decision } from "@hookline/agent"
import type { AgentState, Json } from "@hookline/core"
import { PgliteStore, RunStore } from "@hookline/store"
import { makeAgent, storeDir } from "./agent.js"
import { report } from "./report.js"

const usage = "usage: decide.ts approve <runId> | edit <runId> <amount> | reject <runId> <message>"

type Choice =
  | { readonly kind: "approve" }
  | { readonly kind: "edit"; readonly amount: number }
  | { readonly kind: "reject"; readonly message: string }

// Command-line input is checked before anything is opened.
const parse = (args: ReadonlyArray<string>): { readonly runId: string; readonly choice: Choice } | string => {
  const [kind, runId, ...rest] = args
  if (runId === undefined || runId === "") return usage
  if (kind === "approve" && rest.length === 0) return { runId, choice: { kind } }
  if (kind === "edit" && rest.length === 1) {
    const amount = Number(rest[0])
    if (rest[0]?.trim() === "" || !Number.isFinite(amount) || amount <= 0) return `edit: expected a positive amount, got ${JSON.stringify(rest[0])}`
    return { runId, choice: { kind, amount } }
  }
  if (kind === "reject" && rest.length > 0 && rest.join(" ").trim() !== "") return { runId, choice: { kind, message: rest.join(" ") } }
  return usage
}

const decisionFor = (call: AgentState.PendingCall, choice: Choice): Decision.Decision => {
  const id = call.toolCall.id
  switch (choice.kind) {
    case "approve":
      return Decision.approve(id)
    case "reject":
      return Decision.reject(id, choice.message)
    case "edit": {
      const args = call.toolCall.arguments
      const base = typeof args === "object" && args !== null && !Array.isArray(args) ? args as { readonly [key: string]: Json.JsonValue } : {}
      return Decision.edit(id, { ...base, amount: choice.amount })
    }
  }
}

const parsed = parse(process.argv.slice(2))
if (typeof parsed === "string") {
  console.error(parsed)
  process.exitCode = 2
} else {
  const store = await PgliteStore.open({ dataDir: storeDir() })
  try {
    const saved = await RunStore.load(store, parsed.runId)
    if (saved === undefined) {
      console.error(`no run ${parsed.runId} in ${storeDir()}`)
      process.exitCode = 1
    } else if (saved.state.execution.status !== "suspended") {
      console.error(`run ${parsed.runId} is ${saved.state.execution.status}: nothing to decide`)
      console.log(report(saved.state))
      process.exitCode = 1
    } else {
      const pending = saved.state.execution.pendingCalls ?? []
      const final = await makeAgent(store).resume(parsed.runId, { decisions: pending.map((call) => decisionFor(call, parsed.choice)) })
      console.log(report(final))
    }
  } finally {
    await RunStore.close(store)
  }
}
