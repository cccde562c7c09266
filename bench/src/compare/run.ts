/**
 * The parent's side: spawns one child at a time (never two timing at once) and turns
 * whatever it leaves (results, a crash, a timeout) into results. A child that dies
 * before reporting becomes a failure with the tail of its stderr, never a missing row.
 */
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { label, type ChildSettings } from "./Plan.js"
import * as Result from "./Result.js"
import type { Workload } from "./System.js"

const script = fileURLToPath(new URL("./child.ts", import.meta.url))

/** Runs `module` on `workloads` in a child; one result per workload, in order. */
export const runChild = (
  module: string,
  workloads: ReadonlyArray<Workload>,
  settings: ChildSettings,
): Promise<ReadonlyArray<Result.Result>> =>
  new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      // A roomy heap: a slow peer's 1,000 concurrent runs hold gigabytes.
      ["--expose-gc", "--max-old-space-size=8192", "--import", "tsx", script, module, JSON.stringify(workloads), JSON.stringify(settings)],
      { stdio: ["ignore", "pipe", "pipe"] },
    )
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
    })
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      // Progress passes through; the tail is kept to explain a crash.
      process.stderr.write(chunk)
      stderr = (stderr + chunk).slice(-4_000)
    })
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      child.kill("SIGKILL")
    }, settings.childTimeoutMs)
    const finish = (why: string): void => {
      clearTimeout(timer)
      const results = Result.parse(stdout)
      resolve(workloads.map((workload, i): Result.Result => {
        const found = results[i]
        if (found !== undefined && found.workload.name === workload.name && found.workload.K === workload.K && found.workload.H === workload.H) return found
        return { kind: "failure", module, workload, error: `the child reported nothing for ${label(workload)}: ${why}\n${stderr.trim()}` }
      }))
    }
    child.on("error", (e) => finish(`spawn failed: ${e.message}`))
    child.on("close", (code, signal) =>
      finish(timedOut ? `killed after ${settings.childTimeoutMs / 1000} s` : `exit code ${code ?? "none"}${signal === null ? "" : `, signal ${signal}`}`))
  })
