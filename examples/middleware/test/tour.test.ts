import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { CostBudget, ModelCallLimit, PiiRedaction } from "@hookline/middleware"
import { clearedPlaceholder, costBudget, modelCallLimit, support } from "../src/tour.js"

// Each model call: 2,000 input tokens (1,500 cached) and 100 output tokens of gpt-4o-mini.
const callCost = (500 * 0.15 + 1_500 * 0.075 + 100 * 0.6) / 1_000_000

describe("middleware example", () => {
  it("run 1: every context and safety built-in does its part in one run that completes", async () => {
    const s = await support()
    expect(s.status).toBe("completed")
    expect(s.modelCalls).toBe(6)
    // PII redaction: the tool result the state keeps (and the model read) is redacted.
    expect(s.toolResults[0]).toBe(
      `#42 Ada Lovelace, ${PiiRedaction.placeholder("email")}, ${PiiRedaction.placeholder("phone")}, card ${PiiRedaction.placeholder("card")}`,
    )
    expect(s.toolResults.join("\n")).not.toMatch(/ada@example\.com|4111|555/)
    // With userMessages, the model read the user's question redacted; the state keeps it as written.
    expect(s.questionRead).toBe(`I am agent ${PiiRedaction.placeholder("email")}. What did customer 42 ask about? Answer as JSON.`)
    expect(s.questionKept).toBe("I am agent bob@example.org. What did customer 42 ask about? Answer as JSON.")
    // Tool-call limit: three pages run, the fourth call is blocked with the reason.
    expect(s.toolResults.slice(1, 4).map((r) => r.slice(0, 7))).toEqual(["page 1:", "page 2:", "page 3:"])
    expect(s.toolResults[4]).toContain("Tool call limit reached: 3/3 calls of read_page")
    // Clearing: the state keeps every result; the last call read older ones as the placeholder.
    expect(s.toolResults).not.toContain(clearedPlaceholder)
    expect(s.lastCallToolResults[0]).toBe(clearedPlaceholder)
    expect(s.lastCallToolResults.slice(1)).toEqual(s.toolResults.slice(3))
    // Summarization: one summarizer call; the summary is kept and read in the system prompt.
    expect(s.summaries).toBe(1)
    expect(s.summary).toBe("Ada Lovelace (#42) asked about an invoice; pages 1-2 read.")
    expect(s.lastCallSystemPrompt).toContain(s.summary)
    // Structured output: the prose answer was fed back once; the JSON decoded, redacted
    // too and still JSON: the card number the model wrote as a number is the marker.
    expect(s.outputFeedback).toHaveLength(1)
    expect(s.outputFeedback[0]).toContain("not JSON")
    expect(s.answer).toEqual({ customer: "Ada Lovelace", contact: PiiRedaction.placeholder("email"), card: PiiRedaction.placeholder("card"), pagesRead: 3 })
    // Cost budget: cached tokens counted in the usage and priced at the cached price.
    expect(s.cachedInputTokens).toBe(6 * 1_500)
    expect(s.cost).toBeCloseTo(6 * callCost, 12)
  })

  it("run 2: the model-call limit answers the fourth call of a runaway model", async () => {
    const m = await modelCallLimit()
    expect(m).toMatchObject({ status: "completed", modelCalls: 3, lastMessage: "I stopped after 3 model calls; ask me to go on." })
    expect(m.stoppedBy).not.toBe(ModelCallLimit.name) // "answer" completes the run instead of stopping it
  })

  it("run 3: the cost budget stops the run once it has cost the budget", async () => {
    const c = await costBudget()
    // 2 calls cost 0.000495 (< 0.0005), 3 cost 0.0007425: the budget stops before the fourth.
    expect(c).toMatchObject({ status: "stopped", modelCalls: 3, stoppedBy: CostBudget.name })
    expect(c.message).toBe("Cost budget reached: 0.0007425/0.0005 USD")
  })

  it("runs as a program (pnpm start) and prints what each built-in did", { timeout: 120_000 }, async () => {
    const main = fileURLToPath(new URL("../src/main.ts", import.meta.url))
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ["--conditions=@hookline/source", "--import", "tsx", main],
        { cwd: fileURLToPath(new URL("..", import.meta.url)), timeout: 100_000, killSignal: "SIGKILL" },
        (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)),
      )
    })
    const lines = stdout.trim().split("\n")
    expect(lines[0]).toBe("1. support agent: completed after 6 model calls")
    expect(stdout).toContain("#42 Ada Lovelace, [REDACTED:email], [REDACTED:phone], card [REDACTED:card]")
    expect(stdout).toContain("Blocked: Tool call limit reached: 3/3 calls of read_page in this run")
    expect(stdout).toContain("context:clear_tool_results: the last call read 3 tool results, 1 cleared")
    expect(stdout).toContain("context:summarization: 1 summarizer call(s)")
    expect(stdout).toContain(`the model read the question as "I am agent [REDACTED:email]. What did customer 42 ask about? Answer as JSON."`)
    expect(stdout).toContain(`output:structured: decoded {"customer":"Ada Lovelace","contact":"[REDACTED:email]","card":"[REDACTED:card]","pagesRead":3}`)
    expect(stdout).toContain("guard:cost_budget: 9000 cached input tokens; the run cost 0.001485 USD")
    expect(stdout).toContain("2. runaway model: completed after 3 model calls")
    expect(stdout).toContain("3. expensive model: stopped after 3 model calls")
    expect(stdout).toContain("guard:cost_budget: Cost budget reached: 0.0007425/0.0005 USD")
  })
})
