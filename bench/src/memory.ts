/**
 * W3: the memory of keeping the state after every step of a 1,000-step run, against
 * the memory of the final state alone. States share their history (AppendLog) and
 * every unchanged part, so keeping all of them should cost little more than the last.
 *
 * Run in a process of its own with --expose-gc (main.ts does that): heap sizes are
 * read after full collections.
 */
import * as t from "io-ts"
import { AgentState, InferenceResponse, Message, ToolCall } from "@hookline/core"
import { AgentLoop, Driver, Tool } from "@hookline/agent"
import { Effect, Stream } from "effect"

const steps = Number(process.env["BENCH_QUICK"] === "1" ? 200 : 1_000)
const target = 3

const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) {
  console.error("memory.ts needs --expose-gc")
  process.exit(2)
}

// The model asks for one echo call per step with a few hundred bytes of text, then answers.
const responses = Array.from({ length: steps }, (_, i) =>
  i === steps - 1
    ? InferenceResponse.make({ text: "done", usage: { inputTokens: 10, outputTokens: 2 } })
    : InferenceResponse.make({
      text: `step ${i}: `.padEnd(200, "."),
      toolCalls: [ToolCall.make({ id: `call-${i}`, name: "echo", arguments: { text: `payload ${i} `.padEnd(200, "x") } })],
      usage: { inputTokens: 10, outputTokens: 2 },
    }))
const driver = Driver.make({
  generate: (request) => Effect.succeed(responses[Math.floor((request.messages.length - 1) / 2)] as InferenceResponse),
})
const echo = Tool.make({ name: "echo", parameters: t.type({ text: t.string }), execute: ({ text }) => text })
const loop = AgentLoop.make({ tools: [echo] })
const input = () => AgentState.make({ id: "w3", messages: [Message.user("go")] })

const heap = (): number => {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

const provide = <A>(effect: Effect.Effect<A, never, Driver.Driver>) => Effect.provideService(effect, Driver.Driver, driver)

const measureFinal = async (): Promise<{ readonly bytes: number; readonly state: AgentState }> => {
  const before = heap()
  const state = await Effect.runPromise(provide(AgentLoop.run(loop, input())))
  return { bytes: heap() - before, state }
}

const measureAll = async (): Promise<{ readonly bytes: number; readonly states: ReadonlyArray<AgentState> }> => {
  const before = heap()
  const states = await Effect.runPromise(provide(Stream.runCollect(AgentLoop.iterate(loop, input()))))
  return { bytes: heap() - before, states }
}

// Warm up the code paths (and the heap) once, then measure each three times; medians.
await measureFinal()
await measureAll()
const finals: Array<number> = []
const alls: Array<number> = []
let kept: unknown
for (let i = 0; i < 3; i++) {
  const f = await measureFinal()
  finals.push(f.bytes)
  kept = f.state
  kept = undefined
  const a = await measureAll()
  alls.push(a.bytes)
  if (a.states.length !== steps + 1 || a.states.at(-1)?.execution.steps.length !== steps) {
    throw new Error(`W3: expected ${steps + 1} states and ${steps} steps`)
  }
  kept = a.states
  kept = undefined
}
void kept
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const final = median(finals)
const all = median(alls)
const kib = (b: number) => `${(b / 1024).toFixed(0)} KiB`

console.log(`# W3: memory of every state of a ${steps}-step run against the final state alone${process.env["BENCH_QUICK"] === "1" ? " (BENCH_QUICK=1)" : ""}`)
console.log("")
console.log("heap after full collections (node --expose-gc), median of 3; each step: a 200-character text, one echo call with 200 characters")
console.log("")
console.log("| what is kept | heap | per step |")
console.log("| --- | --: | --: |")
console.log(`| the final state alone | ${kib(final)} | ${(final / steps).toFixed(0)} B |`)
console.log(`| the state after every step (${steps + 1} states) | ${kib(all)} | ${(all / steps).toFixed(0)} B |`)
console.log("")
const ratio = all / final
console.log(`target: every state <= ${target}x the final state's memory: ${ratio <= target ? "met" : "missed"} (${ratio.toFixed(2)}x)`)
