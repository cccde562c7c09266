// The chat example in headless Chromium (playwright-core, with the Chromium binary of
// the @sparticuz/chromium npm package): the page Vite builds, useChat against the real
// server on 127.0.0.1, the refund agent behind it. One browser for all the cases.
import chromium from "@sparticuz/chromium"
import { chromium as playwright, type Browser, type Page } from "playwright-core"
import { build } from "vite"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { start, type ChatServer } from "../src/server.js"

let server: ChatServer
let browser: Browser
beforeAll(async () => {
  await build({ configFile: new URL("../vite.config.ts", import.meta.url).pathname })
  server = await start(0)
  // Its args are for a one-page serverless function: --single-process dies once a page closes.
  const args = chromium.args.filter((arg) => arg !== "--single-process")
  browser = await playwright.launch({ executablePath: await chromium.executablePath(), args, headless: true })
})
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

const open = async (chat: string, route?: "agent"): Promise<Page> => {
  const page = await browser.newPage()
  await page.goto(`${server.url}/?chat=${chat}${route === undefined ? "" : `&route=${route}`}`)
  await page.locator("main").waitFor()
  return page
}

const say = async (page: Page, text: string) => {
  await page.fill("input[name=message]", text)
  await page.click("button[type=submit]")
}

const ready = (page: Page) => page.locator('main[data-status="ready"]').waitFor()
const refundsOf = (order: string) => server.refunds.filter((r) => r.order === order)

describe("the chat example in a browser", () => {
  it("streams text and a tool result; the next message continues the chat, a refund above the limit waits for approval, approving runs it once", async () => {
    const page = await open("approve")
    await say(page, "refund 40 on order A1")
    await page.locator('[data-state="output-available"]').waitFor()
    await page.getByText("Refund done:").waitFor()
    await expect(page.locator(".output").textContent()).resolves.toContain('"refunded":40')
    await ready(page)
    expect(refundsOf("A1")).toHaveLength(1)

    await say(page, "refund 250 on order A7")
    await page.getByText("Looking up order A7.").waitFor()
    await page.locator('[data-state="approval-requested"]').waitFor()
    expect(refundsOf("A7")).toEqual([])
    await page.click("text=Approve")
    await page.locator('[data-state="output-available"]').nth(1).waitFor()
    await page.getByText("Refund done:").nth(1).waitFor()
    await ready(page)
    expect(refundsOf("A7")).toHaveLength(1)
    expect(refundsOf("A7")[0]!.idempotencyKey).toMatch(/^approve:/)
    expect(refundsOf("A1")).toHaveLength(1)
    await page.close()
  })

  it("denying a refund: the tool does not run and the model reads the refusal", async () => {
    const page = await open("deny")
    await say(page, "refund 500 on order B2")
    await page.locator('[data-state="approval-requested"]').waitFor()
    await page.click("text=Deny")
    await page.locator('[data-state="output-denied"]').waitFor()
    await page.getByText("No refund:").waitFor()
    await ready(page)
    expect(refundsOf("B2")).toEqual([])
    await page.close()
  })

  it("reloading the page mid-approval shows the pending approval from the store; approving after the reload runs the refund once", async () => {
    const page = await open("reload")
    await say(page, "refund 300 on order C3")
    await page.locator('[data-state="approval-requested"]').waitFor()
    await page.reload()
    await page.locator('[data-state="approval-requested"]').waitFor()
    await expect(page.getByText("refund 300 on order C3").count()).resolves.toBe(1)
    await page.click("text=Approve")
    await page.locator('[data-state="output-available"]').waitFor()
    await page.getByText("Refund done:").waitFor()
    await ready(page)
    expect(refundsOf("C3")).toHaveLength(1)
    await page.close()
  })

  it("the same agent as an AI SDK Agent (toAiSdkAgent, createAgentUIStreamResponse): streamed text and a tool result; an approval after a reload runs the refund once", async () => {
    const page = await open("agent-route", "agent")
    await expect(page.locator("main").getAttribute("data-api")).resolves.toBe("/api/agent")
    await say(page, "refund 40 on order D1")
    await page.getByText("Looking up order D1.").waitFor()
    await page.locator('[data-state="output-available"]').waitFor()
    await page.getByText("Refund done:").waitFor()
    await expect(page.locator(".output").textContent()).resolves.toContain('"refunded":40')
    await ready(page)
    expect(refundsOf("D1")).toHaveLength(1)

    await say(page, "refund 250 on order D7")
    await page.locator('[data-state="approval-requested"]').waitFor()
    expect(refundsOf("D7")).toEqual([])
    // The reloaded page gets the chat from the store, its tool calls as this route's dynamic-tool parts.
    await page.reload()
    await page.locator('[data-state="approval-requested"]').waitFor()
    await page.click("text=Approve")
    await page.locator('[data-state="output-available"]').nth(1).waitFor()
    await page.getByText("Refund done:").nth(1).waitFor()
    await ready(page)
    expect(refundsOf("D7")).toHaveLength(1)
    await page.close()
  })
})
