import { defineProject } from "vitest/config"

// Tests run against src through the "@hookline/source" export condition, never a stale dist.
const conditions = ["@hookline/source"]

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    name: "bench",
    // The smoke of the comparison only: the benchmarks themselves are never run as tests.
    include: ["test/**/*.test.ts"],
  },
})
