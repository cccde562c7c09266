// How much of a resume of a long run is the agent's entry check (docs/decisions.md,
// "A loaded state is decoded again at the entry"): a run of N messages is saved in a
// MemoryStore, then, interleaved in one sitting, the store's load (its decode of the
// checkpoint rows) and the entry check's decode of the loaded state (Codecs.AgentState,
// the work InputState.check does for a state it has not seen) are timed in CPU time.
//
// Then the same interleaving for what a user waits on: `agent.resume(runId)` of the
// completed run (the load, the entry check, nothing to run), and the entry check alone
// on the loaded state (`agent.resume(state)`: a state it has not seen is checked, one a
// store built from parts core decoded is known, branch entrycheck).
//
//   node --conditions=@hookline/source --import tsx bench/src/resume-entry.ts [messages=10000] [rounds=20]
import { Effect } from "effect"
import { AgentState, Codecs, Message } from "@hookline/core"
import { AgentBuilder, UseDriver } from "@hookline/agent"
import { MemoryStore, RunStore, UseCheckpoints } from "@hookline/store"
import { ScriptedDriver } from "@hookline/testing"

const n = Number(process.argv[2] ?? 10_000)
const rounds = Number(process.argv[3] ?? 20)
const cpu = (): number => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }

const store = MemoryStore.make()
const messages = Array.from({ length: n }, (_, i) => (i % 2 === 0 ? Message.user(`question ${i}`) : Message.assistant(`answer ${i} `.repeat(8))))
const agent = AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.text("done")], { repeatLast: true })), UseCheckpoints(store))
const final = await agent.run(AgentState.make({ id: "long", messages }))
console.log(`run: ${final.context.messages.length} messages, ${final.execution.status}`)

const load: Array<number> = []
const check: Array<number> = []
for (let r = 0; r < rounds; r++) {
  const a = cpu()
  const saved = await Effect.runPromise(RunStore.loadEffect(store, "long"))
  const b = cpu()
  const decoded = Codecs.decode(Codecs.AgentState, saved?.state)
  const c = cpu()
  if (decoded._tag !== "Success") throw new Error("did not decode")
  load.push(b - a)
  check.push(c - b)
}
const resume: Array<number> = []
const entry: Array<number> = []
for (let r = 0; r < rounds; r++) {
  const a = cpu()
  const resumed = await agent.resume("long")
  const b = cpu()
  // A fresh load each round: the agent knows a state it checked once.
  const saved = await Effect.runPromise(RunStore.loadEffect(store, "long"))
  const c = cpu()
  const entered = await agent.resume(saved!.state)
  const d = cpu()
  if (resumed.execution.status !== "completed" || entered !== saved!.state) throw new Error("did not resume as it was")
  resume.push(b - a)
  entry.push(d - c)
}
const built = (Codecs as { readonly isBuilt?: (u: unknown) => boolean }).isBuilt
const probe = await Effect.runPromise(RunStore.loadEffect(store, "long"))
console.log(`loaded state known to core as built: ${built === undefined ? "n/a (no Codecs.isBuilt)" : built(probe?.state)}`)
const median = (xs: Array<number>) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] as number
console.log(`store load   median ${median(load).toFixed(1)} ms CPU (min ${Math.min(...load).toFixed(1)}, max ${Math.max(...load).toFixed(1)})`)
console.log(`entry decode median ${median(check).toFixed(1)} ms CPU (min ${Math.min(...check).toFixed(1)}, max ${Math.max(...check).toFixed(1)})`)
console.log(`resume(runId) median ${median(resume).toFixed(1)} ms CPU (min ${Math.min(...resume).toFixed(1)}, max ${Math.max(...resume).toFixed(1)})`)
console.log(`resume(state) median ${median(entry).toFixed(1)} ms CPU (min ${Math.min(...entry).toFixed(1)}, max ${Math.max(...entry).toFixed(1)})`)
