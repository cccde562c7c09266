// Golden traces of the agent loop (issue 23): a fixed sample of fuzz scenarios, each run and
// written as text (record.ts: every hook call, event, dispatch, model call, tool run and
// abort in order, the stream's events, how each run call ended, and the final state through
// core's state codec), compared byte for byte with what was recorded. A change to how the
// loop behaves shows up here as the scenarios whose text changed.
//
//   npx vitest run packages/agent/test/golden                     compare (part of `pnpm test`)
//   GOLDEN_RECORD=1 npx vitest run packages/agent/test/golden     re-record the fixtures
//                                                                 (or `pnpm golden:record`)
//
// The fixtures: traces.sha256 lists one digest per scenario (text: a review shows which
// scenarios changed), traces.txt.gz holds every scenario's full text (gzip: about 13x
// smaller than the text), so a mismatch shows its diff at once, with no old tree to build.
// On a mismatch the test writes both texts of each changed scenario under .out/ (ignored
// by git) and prints the `diff -u` command for each.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { gunzipSync, gzipSync } from "node:zlib"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { runScenario } from "../fuzz/run.js"
import { describe as describeScenario, scenario, type Scenario } from "../fuzz/scenario.js"
import { diffLines } from "../../../../scripts/text-diff.mjs"
import { digest, recordText } from "./record.js"

/**
 * The sample: fast-check's `scenario` arbitrary from this seed, PLAIN scenarios, then
 * SUSPENDING scenarios that have a hook suspending the run (one in a hundred plain ones
 * ends suspended and is resumed; the resume path is one the redesign moves).
 */
export const SEED = 23
export const PLAIN = 300
export const SUSPENDING = 60
export const COUNT = PLAIN + SUSPENDING

/** Not aborted, and a hook on BeforeToolUse suspends on a tool the script calls with valid arguments (whether it gets there is the run's business). */
const suspends = (s: Scenario): boolean =>
  s.abort === undefined && s.hooks.some((h) => {
    const b = h.behaviour
    return b._tag === "Suspend" && (h.triggers === "all" || h.triggers.includes("BeforeToolUse")) &&
      s.script.some((turn) => turn._tag === "ToolCalls" && turn.calls.some((c) => c._tag === "Valid" && b.tools.includes(c.tool)))
  })

/** The scenarios, the same on every call. */
export const sample = (): ReadonlyArray<Scenario> => [
  ...fc.sample(scenario, { seed: SEED, numRuns: PLAIN }),
  ...fc.sample(scenario.filter(suspends), { seed: SEED, numRuns: SUSPENDING }),
]

const here = fileURLToPath(new URL(".", import.meta.url))
const digestsFile = join(here, "traces.sha256")
const textsFile = join(here, "traces.txt.gz")
const outDir = join(here, ".out")
const recording = process.env["GOLDEN_RECORD"] === "1"

interface Row {
  readonly index: number
  readonly scenario: string
  readonly record: string
  readonly summary: string
}

const rowLine = (r: Row): string => `${r.index} ${r.scenario} ${r.record} ${r.summary}`
const parseRow = (line: string): Row => {
  const [index, scenario, record, ...summary] = line.split(" ")
  return { index: Number(index), scenario: scenario ?? "", record: record ?? "", summary: summary.join(" ") }
}

/** The recorded text of each scenario, from the gzip file: split at the "#### scenario <i>" headers. */
const recordedTexts = (): ReadonlyMap<number, string> => {
  const all = gunzipSync(readFileSync(textsFile)).toString("utf8")
  const out = new Map<number, string>()
  for (const part of all.split(/^(?=#### scenario \d+$)/m)) {
    const index = /^#### scenario (\d+)$/m.exec(part)?.[1]
    if (index !== undefined) out.set(Number(index), part)
  }
  return out
}

const pad = (i: number): string => String(i).padStart(3, "0")

describe("AgentLoop (golden traces)", () => {
  it(
    recording ? `records ${COUNT} fuzz scenarios (seed ${SEED})` : `runs ${COUNT} fixed fuzz scenarios (seed ${SEED}) exactly as recorded`,
    async () => {
      const scenarios = sample()
      const rows: Array<Row> = []
      const texts: Array<string> = []
      for (const [index, s] of scenarios.entries()) {
        const text = recordText(index, s, await runScenario(s))
        texts.push(text)
        rows.push({ index, scenario: digest(JSON.stringify(s)), record: digest(text), summary: `${s.mode} ${text.split("\n").length}` })
      }

      if (recording) {
        writeFileSync(digestsFile, `# golden traces: seed ${SEED}, ${PLAIN} scenarios and ${SUSPENDING} suspending ones; <index> <scenario digest> <record digest> <mode> <lines>\n${rows.map(rowLine).join("\n")}\n`)
        writeFileSync(textsFile, gzipSync(texts.join(""), { level: 9 }))
        rmSync(outDir, { recursive: true, force: true })
        console.log(`golden: recorded ${COUNT} scenarios into ${digestsFile} and ${textsFile}`)
        return
      }

      const recorded = readFileSync(digestsFile, "utf8").split("\n").filter((l) => l !== "" && !l.startsWith("#")).map(parseRow)
      expect(recorded.length, `traces.sha256 holds ${recorded.length} scenarios, the test runs ${COUNT}: re-record (GOLDEN_RECORD=1)`).toBe(COUNT)
      const changed = rows.filter((r) => recorded[r.index]?.record !== r.record)
      if (changed.length === 0) return

      const old = recordedTexts()
      rmSync(outDir, { recursive: true, force: true })
      mkdirSync(outDir, { recursive: true })
      const reports = changed.map((r) => {
        const before = recorded[r.index]
        const expected = old.get(r.index) ?? ""
        const actual = texts[r.index] as string
        writeFileSync(join(outDir, `${pad(r.index)}.expected.txt`), expected)
        writeFileSync(join(outDir, `${pad(r.index)}.actual.txt`), actual)
        const generatorChanged = before !== undefined && before.scenario !== r.scenario
        return [
          `scenario ${r.index}${generatorChanged ? " (the scenario itself changed: fuzz/scenario.ts generates something else from this seed)" : ""}:`,
          `  see: diff -u ${join(outDir, `${pad(r.index)}.expected.txt`)} ${join(outDir, `${pad(r.index)}.actual.txt`)}`,
          diffLines(expected, actual).map((l) => `  ${l}`).join("\n"),
        ].join("\n")
      })
      const first = scenarios[changed[0]!.index]!
      throw new Error(
        [
          `${changed.length} of ${COUNT} golden traces changed: ${changed.map((r) => r.index).join(", ")}`,
          "",
          ...reports.slice(0, 5),
          ...(reports.length > 5 ? [`… and ${reports.length - 5} more (every pair is under ${outDir})`] : []),
          "",
          `scenario ${changed[0]!.index} in words:`,
          describeScenario(first),
          "",
          "If the change is intended (a fix that changes behaviour), re-record and say so in the commit:",
          "  GOLDEN_RECORD=1 npx vitest run packages/agent/test/golden",
        ].join("\n"),
      )
    },
    120_000,
  )
})
