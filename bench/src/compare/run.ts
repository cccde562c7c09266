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

/** What a child left: its stdout, the tail of its stderr, and how it ended. */
export interface Exit {
  readonly stdout: string
  readonly stderr: string
  readonly why: string
}

/**
 * How every child of the comparison runs (the rows' and the pairs'): with `gc` exposed
 * and a roomy heap (a slow peer's 1,000 concurrent runs hold gigabytes), `file` through tsx.
 */
export const childArgs = (file: string, args: ReadonlyArray<string>): ReadonlyArray<string> =>
  ["--expose-gc", "--max-old-space-size=8192", "--import", "tsx", file, ...args]

/**
 * Runs `node --expose-gc --import tsx <script> ...args`, progress (stderr) passed
 * through; killed after `timeoutMs`. Never rejects.
 */
export const spawnChild = (file: string, args: ReadonlyArray<string>, timeoutMs: number, env?: NodeJS.ProcessEnv): Promise<Exit> =>
  new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      childArgs(file, args),
      { stdio: ["ignore", "pipe", "pipe"], env: env ?? process.env },
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
    }, timeoutMs)
    let done = false
    const finish = (why: string): void => {
      if (done) return
      done = true
      clearTimeout(timer)
      resolve({ stdout, stderr: stderr.trim(), why })
    }
    child.on("error", (e) => finish(`spawn failed: ${e.message}`))
    child.on("close", (code, signal) =>
      finish(timedOut ? `killed after ${timeoutMs / 1000} s` : `exit code ${code ?? "none"}${signal === null ? "" : `, signal ${signal}`}`))
  })

/** Runs `module` on `workloads` in a child; one result per workload, in order. */
export const runChild = async (
  module: string,
  workloads: ReadonlyArray<Workload>,
  settings: ChildSettings,
): Promise<ReadonlyArray<Result.Result>> => {
  const exit = await spawnChild(script, [module, JSON.stringify(workloads), JSON.stringify(settings)], settings.childTimeoutMs)
  const results = Result.parse(exit.stdout)
  return workloads.map((workload, i): Result.Result => {
    const found = results[i]
    if (found !== undefined && found.workload.name === workload.name && found.workload.K === workload.K && found.workload.H === workload.H) return found
    return { kind: "failure", module, workload, error: `the child reported nothing for ${label(workload)}: ${exit.why}\n${exit.stderr}` }
  })
}
