import { defineProject } from "vitest/config"

// Tests run against src through the "@hookline/source" export condition, never a stale dist.
const conditions = ["@hookline/source"]

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    name: "cluster",
    include: ["test/**/*.test.ts"],
    // The multi-process test starts PostgreSQL and four node processes;
    // a ceiling, not a measurement.
    testTimeout: 30_000,
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "../../tsconfig.json" },
  },
})
