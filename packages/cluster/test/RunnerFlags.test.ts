// hookline-runner's flags are checked before anything starts: a duration or a count
// that is not one is a clear error naming the flag and what it expected, and the
// runner exits 2 without loading its agents or reaching the database.
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { Effect, Layer, Result } from "effect"
import { describe, expect, it } from "vitest"
import { Runner, Settings } from "../src/index.js"

const root = fileURLToPath(new URL("../../..", import.meta.url))
const bin = fileURLToPath(new URL("../src/bin/runner.ts", import.meta.url))

describe("Settings.fromFlags", () => {
  it.each([
    ["lock-expiration", "abc"],
    ["lock-expiration", "0"],
    ["lock-refresh", "-5 seconds"],
    ["assignments-refresh", "Infinity"],
    ["idle-eviction", "10 parsecs"],
    ["termination-timeout", ""],
    ["max-resident", "1.5"],
    ["max-resident", "0"],
    ["max-resident", "many"],
    ["shards-per-group", "0"],
    ["shards-per-group", "12.5"],
    ["shards-per-group", "few"],
    ["shards-per-group", "10001"],
    ["replies-wait-for-flush", "yes"],
    ["replies-wait-for-flush", ""],
  ])("refuses --%s %j with a typed InvalidSetting naming the flag", (flag, value) => {
    const result = Settings.fromFlags({ [flag]: value })
    expect(Result.isFailure(result)).toBe(true)
    const error = Result.isFailure(result) ? result.failure : undefined
    expect(error).toBeInstanceOf(Settings.InvalidSetting)
    expect(error).toMatchObject({ _tag: "InvalidSetting", setting: `--${flag}`, got: value })
    expect(error?.message).toContain(`--${flag}`)
    expect(error?.message).toContain("expected")
  })

  it("takes durations with a unit or in milliseconds, and positive whole counts", () => {
    const result = Settings.fromFlags({ "lock-expiration": "3 seconds", "lock-refresh": "1000", "max-resident": "500", "idle-eviction": undefined })
    expect(result).toEqual(Result.succeed({ lockExpiration: "3 seconds", lockRefresh: 1000, maxResidentEntities: 500 }))
  })

  it("takes --shards-per-group as a positive whole count", () => {
    expect(Settings.fromFlags({ "shards-per-group": "100" })).toEqual(Result.succeed({ shardsPerGroup: 100 }))
    expect(Settings.fromFlags({ "shards-per-group": "10000" })).toEqual(Result.succeed({ shardsPerGroup: 10_000 }))
    expect(Settings.check({ shardsPerGroup: 20_000 })).toEqual(
      Result.fail(new Settings.InvalidSetting({ setting: "shardsPerGroup", expected: "a whole number from 1 to 10000", got: "20000" })),
    )
  })

  it("takes --replies-wait-for-flush true or false", () => {
    expect(Settings.fromFlags({ "replies-wait-for-flush": "true" })).toEqual(Result.succeed({ repliesWaitForFlush: true }))
    expect(Settings.fromFlags({ "replies-wait-for-flush": " false " })).toEqual(Result.succeed({ repliesWaitForFlush: false }))
  })
})

describe("Settings.check / Runner.layer", () => {
  it("fails a runner's layer with a typed InvalidSetting naming the setting given in code, before anything starts", async () => {
    const layer = Runner.layer({ agents: [], database: "postgres://127.0.0.1:1/none", settings: { lockExpiration: "-1 seconds" as never } })
    const error = await Effect.runPromise(Effect.flip(Effect.scoped(Layer.build(layer))))
    expect(error).toMatchObject({ _tag: "InvalidSetting", setting: "lockExpiration", got: "-1 seconds" })
    expect(Settings.check({ maxResidentEntities: 0 })).toEqual(Result.fail(new Settings.InvalidSetting({ setting: "maxResidentEntities", expected: "a positive whole number", got: "0" })))
    expect(Settings.check(Settings.defaults)).toEqual(Result.succeed(Settings.defaults))
    expect(Settings.check({ repliesWaitForFlush: "no" as never })).toEqual(Result.fail(new Settings.InvalidSetting({ setting: "repliesWaitForFlush", expected: "true or false", got: "no" })))
  })
})

describe("hookline-runner", () => {
  it("exits 2 on --lock-expiration abc before it loads its agents or reaches the database", () => {
    const run = spawnSync(
      process.execPath,
      ["--conditions=@hookline/source", "--import", "tsx", bin, "--agents", "./no-such-agents.mjs", "--db", "postgres://127.0.0.1:1/none", "--lock-expiration", "abc"],
      { cwd: root, encoding: "utf8", timeout: 60_000 },
    )
    expect(run.status).toBe(2)
    expect(run.stderr).toContain("--lock-expiration")
    expect(run.stderr).toContain("\"abc\"")
    expect(run.stderr).not.toContain("no-such-agents")
  })

  // A path that names no file is a bad flag too (branch tidy5): it exited 1 with Node's
  // ERR_MODULE_NOT_FOUND and its stack. A module that is there and fails to load (its own
  // import, a syntax error) still throws with its stack: that is the module's bug.
  it("exits 2 with one line on an --agents path that names no file, before it reaches the database", () => {
    const run = spawnSync(
      process.execPath,
      ["--conditions=@hookline/source", "--import", "tsx", bin, "--agents", "./no-such-agents.mjs", "--db", "postgres://127.0.0.1:1/none"],
      { cwd: root, encoding: "utf8", timeout: 60_000 },
    )
    expect(run.status, run.stderr).toBe(2)
    expect(run.stderr).toBe(`hookline-runner: --agents: no module file at ${JSON.stringify(`${root}no-such-agents.mjs`)}\n`)
  })
})
