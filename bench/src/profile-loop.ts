/**
 * Runs W1 (50 steps, K observers on every trigger; K = 0 unless given) in a loop, for
 * a CPU profile of the agent loop, on the internal path (`Effect.runPromise(AgentLoop.run(...))`,
 * the default) or the user path (`facade`: `agent.run`; `stream`: `agent.stream`, see
 * UserPath.ts):
 *
 *   node --import tsx --cpu-prof --cpu-prof-dir=/tmp/prof bench/src/profile-loop.ts [seconds] [K] [internal|facade|stream]
 *   node --import tsx bench/src/profile-summary.ts /tmp/prof/<file>.cpuprofile
 *
 * Imports the built packages (dist/), as the benchmark does: run `pnpm build` first
 * (or profile the sources: `node --conditions=@hookline/source --import tsx ...`).
 */
import { w1Run, w1Steps } from "./loop.js"

const seconds = Number(process.argv[2] ?? 10)
const K = Number(process.argv[3] ?? 0)
const path = process.argv[4] ?? "internal"
if (path !== "internal" && path !== "facade" && path !== "stream") throw new Error(`path: expected internal, facade or stream, got ${path}`)
const run = await w1Run(K, path)

// Warm-up, untimed.
for (let i = 0; i < 200; i++) await run()

let runs = 0
let checksum = 0
const start = performance.now()
const until = start + seconds * 1000
while (performance.now() < until) {
  checksum += await run()
  runs++
}
const ms = performance.now() - start
console.log(
  `W1 K=${K} (${path}): ${runs} runs in ${(ms / 1000).toFixed(1)} s: ${((ms * 1000) / runs).toFixed(1)} µs per run, ` +
    `${((ms * 1000) / runs / w1Steps).toFixed(2)} µs per step (checksum ${checksum})`,
)
