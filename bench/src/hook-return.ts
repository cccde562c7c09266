/**
 * One side of an A/B of the check of a hook's return (branch plaindata): `HookStack.run`
 * with one hook that returns its input, changes ctx metadata through
 * `HookContext.withMetadata`, or changes the state's metadata by hand (unfrozen spread);
 * ns per run, the median of 9 batches of 50,000. Run each side in a fresh process,
 * alternated, under the same load:
 *
 *   git archive <base> packages/core | tar -x -C /tmp/base && ln -s "$PWD/packages/core/node_modules" /tmp/base/packages/core/node_modules
 *   for r in 1 2 3 4 5 6; do for s in /tmp/base/packages/core/src/index.ts packages/core/src/index.ts; do
 *     node --conditions=@hookline/source --import tsx bench/src/hook-return.ts "$s"; done; done
 */
import { pathToFileURL } from "node:url"
import { resolve } from "node:path"

type Core = typeof import("@hookline/core")

const main = async (): Promise<void> => {
  const C = (await import(pathToFileURL(resolve(process.argv[2] ?? "packages/core/src/index.ts")).href)) as Core
  const state = C.AgentState.make({ id: "s", messages: Array.from({ length: 50 }, (_, i) => C.Message.user(`m${i}`)) })
  const ctx = C.HookContext.make({ trigger: "BeforeStep", state, createdAt: 1 })
  const stackOf = (hook: C_Hook) => C.HookStack.with(C.HookStack.empty, hook, { triggers: "BeforeStep", name: "h" })
  type C_Hook = Parameters<Core["HookStack"]["with"]>[1]
  const cases: Record<string, ReturnType<typeof stackOf>> = {
    identity: stackOf((c) => c),
    withMetadata: stackOf((c) => C.HookContext.withMetadata(c, { k: 1 })),
    handBuilt: stackOf((c) => ({ ...c, state: { ...c.state, metadata: { k: [1, { a: "x" }] } } })),
  }
  const out: Array<string> = []
  for (const [name, stack] of Object.entries(cases)) {
    const times: Array<number> = []
    for (let batch = 0; batch < 11; batch++) {
      const started = process.hrtime.bigint()
      for (let i = 0; i < 50_000; i++) C.HookStack.run(stack, ctx)
      if (batch >= 2) times.push(Number(process.hrtime.bigint() - started) / 50_000)
    }
    times.sort((a, b) => a - b)
    out.push(`${name}=${(times[4] as number).toFixed(1)}`)
  }
  console.log(out.join(" "))
}

void main()
