import { defineProject } from "vitest/config"

// Tests run against src through the "@hookline/source" export condition, never a stale dist.
const conditions = ["@hookline/source"]

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    name: "otel",
    include: ["test/**/*.test.ts"],
    // One test starts a child process (a resume in another process); a ceiling, not a measurement.
    testTimeout: 30_000,
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "../../tsconfig.json" },
  },
})
