// The golden record of one fuzz scenario (issue 23): everything the run did, as text that
// is the same on every run of the same code. A run of the fuzzer (../fuzz/run.ts) records
// every hook call, event, dispatch, model call, tool run, permission question and abort in
// one ordered log, on a virtual clock; this file writes that log, every event a stream
// yielded, how each run call ended and its final state encoded with core's state codec
// (keys sorted), for the first run call, each resume and the streamed twin.
//
// Nothing here reads real time or draws a random number: the clock is the fuzzer's
// VirtualClock (epoch 1,700,000,000,000), tool call ids come from the scripted driver
// (call_<n>), state ids are fixed ("fuzz"). A defect is written as its first line only
// (a stack trace names lines of the source, which a move changes).
import { createHash } from "node:crypto"
import { Codecs, HookContext, type AgentState, type HookExecuted } from "@hookline/core"
import type { AgentEvent } from "@hookline/agent"
import { chainOf, type Entry, type Recording } from "../fuzz/run.js"
import type { Scenario } from "../fuzz/scenario.js"

const EPOCH = 1_700_000_000_000

/** A JSON text with every object's keys sorted, so it does not depend on the order a module builds an object in. */
export const canonical = (value: unknown, indent = 0): string => {
  const pad = "  ".repeat(indent + 1)
  const end = "  ".repeat(indent)
  if (value === undefined) return "undefined"
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? String(value)
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]"
    return `[\n${value.map((v) => pad + canonical(v, indent + 1)).join(",\n")}\n${end}]`
  }
  const keys = Object.keys(value).filter((k) => (value as Record<string, unknown>)[k] !== undefined).sort()
  if (keys.length === 0) return "{}"
  return `{\n${keys.map((k) => `${pad}${JSON.stringify(k)}: ${canonical((value as Record<string, unknown>)[k], indent + 1)}`).join(",\n")}\n${end}}`
}

/** A short digest of a text (sha-256, hex, first 16 characters). */
export const digest = (text: string): string => createHash("sha256").update(text).digest("hex").slice(0, 16)

/** Virtual time as an offset from the clock's epoch, so the numbers stay short. */
const t = (ms: number): string => (ms >= EPOCH - 10_000_000 ? `T+${ms - EPOCH}` : String(ms))

/** A context in one line; a hand-built one a hook returned may lack parts: then says so. */
const ctxLine = (ctx: HookContext): string => {
  try {
    return fullCtxLine(ctx)
  } catch {
    return "malformed context"
  }
}

const fullCtxLine = (ctx: HookContext): string => {
  const x = ctx.state.execution
  return `steps=${x.steps.length} msgs=${ctx.state.context.messages.length} status=${x.status} signals=${x.stopSignals.length} errors=${ctx.errors.length}${
    ctx.toolCall === undefined ? "" : ` call=${ctx.toolCall.id}:${ctx.toolCall.name}`
  }${ctx.toolExecutionBlocked ? " blocked" : ""} at=${t(ctx.updatedAt)}`
}

const eventLine = (e: HookExecuted): string =>
  `${e.trigger} ${e.hook} ${e.outcome} at=${t(e.startedAt)} took=${e.durationMs}${e.error === undefined ? "" : ` error=${JSON.stringify(e.error)}`}`

const outputLine = (e: Extract<Entry, { _tag: "Exit" }>): string =>
  e.output === e.input
    ? "same"
    : HookContext.isHookContext(e.output)
    ? `changed ${ctxLine(e.output)}`
    : e.output === undefined
    ? "undefined"
    : e.output === null
    ? "null"
    : typeof e.output === "object" && typeof (e.output as { then?: unknown }).then === "function"
    ? "a promise"
    : `not a context (${typeof e.output})`

/** One line per log entry: what happened, with the virtual times and the facts a move must keep. */
export const entryLine = (e: Entry): string => {
  switch (e._tag) {
    case "Enter":
      return `enter ${e.trigger} ${e.hook} ${ctxLine(e.ctx)}${e.unfrozen === undefined ? "" : ` UNFROZEN ${e.unfrozen}`}`
    case "Exit":
      return `exit ${e.trigger} ${e.hook} ${outputLine(e)}`
    case "Raise":
    case "Interrupted":
      return `${e._tag.toLowerCase()} ${e.trigger} ${e.hook}`
    case "Event":
      return `event ${eventLine(e.event)}`
    case "DispatchStart":
      return `dispatch ${e.trigger} ${ctxLine(e.ctx)}`
    case "DispatchEnd":
      return `dispatch-end ${e.trigger} ${e.outcome}${e.ctx === undefined ? "" : ` ${ctxLine(e.ctx)}`}${e.unfrozen === undefined ? "" : ` UNFROZEN ${e.unfrozen}`}`
    case "ToolRun":
      return `tool ${e.tool} ${e.callId} args=${JSON.stringify(e.args) ?? "undefined"}${e.unfrozen === undefined ? "" : ` UNFROZEN ${e.unfrozen}`}`
    case "ToolDone":
      return `tool-done ${e.tool} ${e.callId}`
    case "DriverCall":
      return `model #${e.index} ${e.turn === undefined ? "(script exhausted)" : e.turn._tag} msgs=${e.request.messages.length} tools=${e.request.tools.length}${
        e.unfrozen === undefined ? "" : ` UNFROZEN ${e.unfrozen}`
      }`
    case "DriverEnd":
      return `model-end #${e.index} ${e.outcome}`
    case "Permission":
      return `permission ${e.hook} ${e.callId} ${e.phase}`
    case "Abort":
      return `ABORT via ${e.via} (${e.timing})`
    case "WrapEnter":
      return `wrap ${e.point} ${e.hook} ${ctxLine(e.ctx)}${e.unfrozen === undefined ? "" : ` UNFROZEN ${e.unfrozen}`}`
    case "WrapNext":
      return `wrap-next ${e.point} ${e.hook} ${ctxLine(e.ctx)}`
    case "WrapExit":
      return `wrap-end ${e.point} ${e.hook} ${e.outcome}`
  }
}

const stateSummary = (s: AgentState): string => `${s.execution.status} steps=${s.execution.steps.length} msgs=${s.context.messages.length}`

/** One line per event a stream yielded (the states they carry are summed up; the final one is written in full). */
export const streamLine = (e: AgentEvent): string => {
  switch (e._tag) {
    case "RunStarted":
    case "RunEnded":
      return `${e._tag} ${stateSummary(e.state)}`
    case "TextChecked":
      return `TextChecked ${e.mode} [${e.hooks.join(", ")}] ${JSON.stringify(e.reason)}`
    case "TextDelta":
      return `TextDelta step=${e.step} ${JSON.stringify(e.text)}`
    case "ReasoningDelta":
      return `ReasoningDelta step=${e.step} ${JSON.stringify(e.text)}`
    case "TextReset":
      return `TextReset step=${e.step}`
    case "ToolCallRequested":
      return `ToolCallRequested step=${e.step} ${e.toolCall.id}:${e.toolCall.name}`
    case "ToolResult":
      return `ToolResult step=${e.step} ${e.execution.toolCall.id} ${e.execution.status}`
    case "HookExecuted":
      return `HookExecuted ${eventLine(e.event)}`
    case "HookFailed":
      return `HookFailed ${e.error.trigger} ${e.error.hook} ${JSON.stringify(e.error.message)}`
    case "StepEnded":
      return `StepEnded step=${e.step.index} ${stateSummary(e.state)}`
    case "Suspended":
      return `Suspended [${e.pendingCalls.map((p) => p.toolCall.id).join(", ")}] ${stateSummary(e.state)}`
    case "Subagent":
      return `Subagent ${e.parent.toolCallId} ${streamLine(e.event)}`
  }
}

/** A defect's first line, without the stack a move would change. */
const defectLine = (defect: string | undefined): string => (defect ?? "").split("\n")[0]?.trim() ?? ""

const callText = (r: Recording, label: string): ReadonlyArray<string> => [
  `== ${label}: ${r.mode}${r.marked ? ", marked" : ""}, ${r.toolConcurrency}, maxSteps ${r.maxSteps}`,
  `explain ${canonical(r.explain)}`.replace(/\n\s*/g, " "),
  ...r.log.map((e, i) => `${i} ${entryLine(e)}`),
  ...(r.streamEvents === undefined ? [] : ["-- stream events", ...r.streamEvents.map(streamLine)]),
  `-- exit ${r.exit}${r.exit === "defect" ? `: ${defectLine(r.defect)}` : ""}`,
  r.final === undefined ? "-- final state: none" : `-- final state (Codecs.AgentState, keys sorted)\n${canonical(Codecs.encode(Codecs.AgentState, r.final))}`,
]

const chainText = (r: Recording, name: string): ReadonlyArray<string> =>
  chainOf(r).flatMap((call, k) => {
    const resumed = k === 0 ? undefined : chainOf(r)[k - 1]?.resumed
    return [
      ...(resumed === undefined
        ? []
        : [
          `== resume ${k} of ${name}: decisions ${canonical(resumed.decisions).replace(/\n\s*/g, " ")}; encoded ${resumed.encoded}${
            resumed.probe === undefined ? "" : `; probe ${resumed.probe.kind} got ${JSON.stringify(resumed.probe.got)}`
          }`,
        ]),
      ...callText(call, k === 0 ? name : `${name}, run call ${k}`),
    ]
  })

/** The golden text of one scenario's recording. */
export const recordText = (index: number, s: Scenario, r: Recording): string =>
  [
    `#### scenario ${index}`,
    `scenario ${digest(JSON.stringify(s))}`,
    ...chainText(r, "run"),
    ...(r.twin === undefined ? [] : chainText(r.twin, "twin (stream)")),
    "",
  ].join("\n")
