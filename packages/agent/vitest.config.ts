import { defineProject } from "vitest/config"

// Tests run against src through the "@hookline/source" export condition, never a stale dist.
const conditions = ["@hookline/source"]

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    name: "agent",
    include: ["test/**/*.test.ts"],
    // Property runs: seconds on a loaded 2-core machine, not the default 5.
    testTimeout: 30_000,
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "../../tsconfig.json" },
  },
})
