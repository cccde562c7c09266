// Runs a synchronous call under a controlled clock and random source. A pure hook
// gives the same output under any of them; a hook that reads `Date.now()`,
// `new Date()`, `performance.now()`, `Math.random()` or `crypto.randomUUID()` /
// `crypto.getRandomValues()` does not. Globals are swapped only for the duration of
// the call and always restored.

/** One controlled world: where its clock starts, how fast it runs, what "random" gives. */
export interface World {
  /** Epoch ms of the first clock reading. */
  readonly epochMs: number
  /** Milliseconds the clock advances at each reading. */
  readonly tickMs: number
  /** What the first `performance.now()` reads (time since the process started). */
  readonly uptimeMs: number
  /** What every `Math.random()` returns. */
  readonly random: number
  /** What every random byte is. */
  readonly byte: number
}

/** Two worlds as far apart as can be: another hour, another tick, opposite randomness. */
export const worlds: readonly [World, World] = [
  { epochMs: 1_700_000_000_000, tickMs: 1, uptimeMs: 1_234.5, random: 0, byte: 0x00 },
  { epochMs: 1_700_003_600_017, tickMs: 997, uptimeMs: 987_654.25, random: 1 - 2 ** -53, byte: 0xff },
]

const hex = (byte: number): string => byte.toString(16).padStart(2, "0")

interface RandomSource {
  randomUUID: () => string
  getRandomValues: <T extends ArrayBufferView | null>(array: T) => T
}

export const within = <A>(world: World, f: () => A): A => {
  const g = globalThis as unknown as { Date: DateConstructor; crypto?: RandomSource; performance?: { now: () => number } }
  const RealDate = g.Date
  const realRandom = Math.random
  const perf = g.performance
  const realPerfNow = perf?.now
  const crypto = g.crypto
  const hadOwnUUID = crypto !== undefined && Object.hasOwn(crypto, "randomUUID")
  const hadOwnValues = crypto !== undefined && Object.hasOwn(crypto, "getRandomValues")
  const realUUID = crypto?.randomUUID
  const realValues = crypto?.getRandomValues

  let readings = 0
  const now = (): number => world.epochMs + world.tickMs * readings++
  const FakeDate = function(this: unknown, ...args: Array<unknown>) {
    if (new.target === undefined) return new RealDate(now()).toString()
    return Reflect.construct(RealDate, args.length === 0 ? [now()] : args, new.target) as Date
  } as unknown as DateConstructor
  Object.defineProperties(FakeDate, {
    prototype: { value: RealDate.prototype },
    now: { value: now },
    parse: { value: RealDate.parse },
    UTC: { value: RealDate.UTC },
  })
  const uuid = (): string => {
    const b = hex(world.byte)
    return `${b.repeat(4)}-${b.repeat(2)}-4${b.repeat(1)}${b[0]}-8${b.repeat(1)}${b[0]}-${b.repeat(6)}`
  }
  const values = <T extends ArrayBufferView | null>(array: T): T => {
    if (array !== null) new Uint8Array(array.buffer, array.byteOffset, array.byteLength).fill(world.byte)
    return array
  }

  g.Date = FakeDate
  Math.random = () => world.random
  if (perf !== undefined) perf.now = () => now() - world.epochMs + world.uptimeMs
  if (crypto !== undefined) {
    crypto.randomUUID = uuid
    crypto.getRandomValues = values
  }
  try {
    return f()
  } finally {
    g.Date = RealDate
    Math.random = realRandom
    if (perf !== undefined && realPerfNow !== undefined) {
      if (Object.hasOwn(perf, "now")) delete (perf as { now?: unknown }).now
      if (perf.now !== realPerfNow) perf.now = realPerfNow
    }
    if (crypto !== undefined) {
      if (hadOwnUUID) crypto.randomUUID = realUUID as RandomSource["randomUUID"]
      else delete (crypto as { randomUUID?: unknown }).randomUUID
      if (hadOwnValues) crypto.getRandomValues = realValues as RandomSource["getRandomValues"]
      else delete (crypto as { getRandomValues?: unknown }).getRandomValues
    }
  }
}
