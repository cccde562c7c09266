/**
 * The dispatch workload: a stack of K pure observer hooks on BeforeStep, run on a
 * context whose state holds H messages, against a hand-written loop over the same K
 * functions. Also: the hand-written loop over a frozen array (what a frozen hook array costs;
 * the stack no longer dispatches over one), the stack with an event sink attached, and the Effect form (`stack.intercept`).
 */
import { AgentState, HookContext, HookStack, Message, type Hook, type HookExecuted } from "@hookline/core"
import { Effect } from "effect"
import type { Case, Summary } from "./measure.js"

/** Hooks per stack. */
export const Ks = [0, 5, 20] as const
/** Messages in the state's history. */
export const Hs = [10, 1_000, 10_000] as const
/** The extra rows: listening, a frozen hook array, and the Effect path. */
const sinkKs = [5, 20] as const
const effectK = 5
const extraHs = [10, 10_000] as const

// What the observers read and the sink received, kept so that no hook body is dead
// code. A typed array, not a `let`: a module-level number past the small-integer
// range is boxed anew on every `+=`, which would cost more than the call itself.
const counters = new Float64Array(2)

/** What the hooks saw and the sink received; printed at the end of a run. */
export const observed = (): { readonly seen: number; readonly events: number } => ({
  seen: counters[0] ?? 0,
  events: counters[1] ?? 0,
})

// One function literal for every observer, and the hand-written loop uses the very
// same function objects: both sides call the same code.
const observer = (): Hook => (ctx) => {
  counters[0] = (counters[0] as number) + ctx.state.context.messages.length
  return ctx
}

const listen: HookExecuted.EventSink = () => {
  counters[1] = (counters[1] as number) + 1
}

interface Fixture {
  readonly K: number
  readonly H: number
  readonly ctx: HookContext
  readonly hooks: ReadonlyArray<Hook>
  readonly stack: HookStack
}

const history = (H: number): ReadonlyArray<Message> =>
  Array.from({ length: H }, (_, i) => (i % 2 === 0 ? Message.user(`question ${i}`) : Message.assistant(`answer ${i}`)))

const fixture = (K: number, H: number): Fixture => {
  const state = AgentState.make({ id: `bench-${K}-${H}`, messages: history(H) })
  // createdAt 1, so the kernels' sums count the calls.
  const ctx = HookContext.make({ trigger: "BeforeStep", state, createdAt: 1 })
  const hooks = Array.from({ length: K }, observer)
  const stack = hooks.reduce<HookStack>(
    (s, hook, i) => HookStack.with(s, hook, { triggers: "BeforeStep", name: `observer:${i}` }),
    HookStack.empty,
  )
  // Not a test: a guard against measuring the wrong thing (hooks on another trigger, a copy).
  const before = observed().seen
  if (HookStack.run(stack, ctx) !== ctx || observed().seen - before !== K * H) {
    throw new Error(`bench fixture K=${K} H=${H}: the stack did not run its ${K} observers on BeforeStep`)
  }
  return { K, H, ctx, hooks, stack }
}

/** The hand-written loop: the same functions, in order, on the same context. */
const bare = (hooks: ReadonlyArray<Hook>, ctx: HookContext): HookContext => {
  let out = ctx
  for (let i = 0; i < hooks.length; i++) out = (hooks[i] as Hook)(out)
  return out
}

// The same loop over a frozen copy of the array (why the stack does not keep one): a
// separate function, so that its element loads do not share feedback with `bare`.
const bareFrozen = (hooks: ReadonlyArray<Hook>, ctx: HookContext): HookContext => {
  let out = ctx
  for (let i = 0; i < hooks.length; i++) out = (hooks[i] as Hook)(out)
  return out
}

// Each kernel runs its operation n times in its own loop (one function per kind of
// operation, so the call inside stays monomorphic) and sums `createdAt` of the results.
const hooklineKernel = ({ stack, ctx }: Fixture) => (n: number): number => {
  let acc = 0
  for (let i = 0; i < n; i++) acc += HookStack.run(stack, ctx).createdAt
  return acc
}

const bareKernel = ({ hooks, ctx }: Fixture) => (n: number): number => {
  let acc = 0
  for (let i = 0; i < n; i++) acc += bare(hooks, ctx).createdAt
  return acc
}

const bareFrozenKernel = ({ hooks, ctx }: Fixture) => {
  const frozen = Object.freeze([...hooks])
  return (n: number): number => {
    let acc = 0
    for (let i = 0; i < n; i++) acc += bareFrozen(frozen, ctx).createdAt
    return acc
  }
}

const sinkKernel = ({ stack, ctx }: Fixture) => {
  const options: HookStack.RunOptions = { sink: listen }
  return (n: number): number => {
    let acc = 0
    for (let i = 0; i < n; i++) acc += HookStack.run(stack, ctx, options).createdAt
    return acc
  }
}

const runSyncKernel = ({ stack, ctx }: Fixture) => (n: number): number => {
  let acc = 0
  for (let i = 0; i < n; i++) acc += Effect.runSync(stack.intercept(ctx)).createdAt
  return acc
}

const runPromiseKernel = ({ stack, ctx }: Fixture) => async (n: number): Promise<number> => {
  let acc = 0
  for (let i = 0; i < n; i++) acc += (await Effect.runPromise(stack.intercept(ctx))).createdAt
  return acc
}

const key = (kind: string, K: number, H: number): string => `${kind} K=${K} H=${H}`

/** Every case, hookline and its hand-written loop side by side, then the extra rows. */
export const cases = (): ReadonlyArray<Case> => {
  const fixtures = new Map<string, Fixture>()
  const get = (K: number, H: number): Fixture => {
    const name = key("fixture", K, H)
    const found = fixtures.get(name)
    if (found !== undefined) return found
    const made = fixture(K, H)
    fixtures.set(name, made)
    return made
  }
  const out: Array<Case> = []
  for (const K of Ks) {
    for (const H of Hs) {
      const f = get(K, H)
      out.push({ name: key("hookline", K, H), async: false, run: hooklineKernel(f) })
      out.push({ name: key("bare", K, H), async: false, run: bareKernel(f) })
    }
  }
  for (const H of extraHs) {
    for (const K of sinkKs) out.push({ name: key("sink", K, H), async: false, run: sinkKernel(get(K, H)) })
    for (const K of sinkKs) out.push({ name: key("bareFrozen", K, H), async: false, run: bareFrozenKernel(get(K, H)) })
    out.push({ name: key("runSync", effectK, H), async: false, run: runSyncKernel(get(effectK, H)) })
    out.push({ name: key("runPromise", effectK, H), async: true, run: runPromiseKernel(get(effectK, H)) })
  }
  return out
}

/** A row of the main table. */
export interface DispatchRow {
  readonly K: number
  readonly H: number
  readonly hookline: Summary
  readonly bare: Summary
  /** hookline ns per call / K; undefined for K = 0. */
  readonly perHook: number | undefined
  /** hookline / bare at the same K and H; undefined for K = 0. */
  readonly ratio: number | undefined
  /** hookline at this H / hookline at H = 10, same K. */
  readonly flatness: number
}

/** A row of the second table: listening, a frozen hook array, the Effect path. */
export interface ExtraRow {
  readonly path: string
  readonly K: number
  readonly H: number
  readonly summary: Summary
  /** This path / the hot path (`HookStack.run`, no sink) at the same K and H. */
  readonly vsHotPath: number
}

export interface Verdict {
  readonly text: string
  readonly met: boolean
}

export interface DispatchReport {
  readonly rows: ReadonlyArray<DispatchRow>
  readonly extras: ReadonlyArray<ExtraRow>
  readonly verdicts: ReadonlyArray<Verdict>
}

export const ratioTarget = 10
export const flatnessTarget = 1.5

const need = (results: ReadonlyMap<string, Summary>, name: string): Summary => {
  const found = results.get(name)
  if (found === undefined) throw new Error(`no result for ${name}`)
  return found
}

/** Turns measurements into the rows of both tables and the verdict on each target. */
export const report = (results: ReadonlyMap<string, Summary>): DispatchReport => {
  const firstH = Hs[0]
  const lastH = Hs[Hs.length - 1] ?? firstH
  const rows: Array<DispatchRow> = []
  for (const K of Ks) {
    const base = need(results, key("hookline", K, firstH))
    for (const H of Hs) {
      const hookline = need(results, key("hookline", K, H))
      const bareRun = need(results, key("bare", K, H))
      rows.push({
        K,
        H,
        hookline,
        bare: bareRun,
        perHook: K === 0 ? undefined : hookline.p50 / K,
        ratio: K === 0 ? undefined : hookline.p50 / bareRun.p50,
        flatness: hookline.p50 / base.p50,
      })
    }
  }

  const extras: Array<ExtraRow> = []
  const extra = (path: string, kind: string, K: number, H: number): void => {
    const summary = need(results, key(kind, K, H))
    extras.push({ path, K, H, summary, vsHotPath: summary.p50 / need(results, key("hookline", K, H)).p50 })
  }
  for (const K of sinkKs) for (const H of extraHs) extra("bare loop over a frozen array of the hooks", "bareFrozen", K, H)
  for (const K of sinkKs) for (const H of extraHs) extra("HookStack.run(stack, ctx, { sink })", "sink", K, H)
  for (const H of extraHs) extra("Effect.runSync(stack.intercept(ctx))", "runSync", effectK, H)
  for (const H of extraHs) extra("Effect.runPromise(stack.intercept(ctx))", "runPromise", effectK, H)

  const ratios = rows.filter((r) => r.ratio !== undefined)
  const worstRatio = ratios.reduce<DispatchRow | undefined>((w, r) => (w === undefined || (r.ratio ?? 0) > (w.ratio ?? 0) ? r : w), undefined)
  const flat = rows.filter((r) => r.H === lastH)
  const worstFlat = flat.reduce<DispatchRow | undefined>((w, r) => (w === undefined || r.flatness > w.flatness ? r : w), undefined)
  const fmt = (x: number | undefined): string => (x === undefined ? "n/a" : `${x.toFixed(2)}x`)
  const ratioMet = worstRatio !== undefined && (worstRatio.ratio ?? Infinity) <= ratioTarget
  const flatMet = worstFlat !== undefined && worstFlat.flatness <= flatnessTarget
  const verdicts: Array<Verdict> = [
    {
      met: ratioMet,
      text: `target: <= ${ratioTarget}x hand-written loop per hook call: ${ratioMet ? "met" : "missed"} (worst ratio ${fmt(worstRatio?.ratio)}, at K=${worstRatio?.K} H=${worstRatio?.H.toLocaleString("en-US")})`,
    },
    {
      met: flatMet,
      text: `target: flat in history (<= ${flatnessTarget}x from ${firstH} to ${lastH.toLocaleString("en-US")}): ${flatMet ? "met" : "missed"} (worst ${fmt(worstFlat?.flatness)}, at K=${worstFlat?.K})`,
    },
  ]
  return { rows, extras, verdicts }
}
