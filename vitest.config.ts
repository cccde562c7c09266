import { defineConfig } from "vitest/config"
import projects from "./vitest.workspace.ts"

export default defineConfig({
  test: {
    projects,
    // A failed run writes one warning through Effect's logger (docs/loop.md, "A failed
    // run"): thousands of tests end runs failed on purpose, so their lines are dropped
    // here; tests of the warning itself give their own logger.
    onConsoleLog: (log) => !/hookline: run "[^"]*" failed: /.test(log),
  },
})
