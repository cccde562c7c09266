import { defineProject } from "vitest/config"

// Tests run against src through the "@hookline/source" export condition, never a stale dist.
const conditions = ["@hookline/source"]

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    name: "cluster",
    include: ["test/**/*.test.ts"],
    // The multi-process test runs alone, after the rest (vitest.alone.config.ts,
    // `pnpm test:alone`): beside other test files its runners' lock pauses and drains
    // stretched past its bounds on this 2-core machine.
    exclude: ["test/MultiProcess.test.ts"],
    testTimeout: 30_000,
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "../../tsconfig.json" },
  },
})
