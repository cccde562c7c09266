import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

// The multi-process test (PostgreSQL, three runner processes and a client, SIGKILL,
// SIGTERM, SIGSTOP) on its own, after every other test file (`pnpm test:alone`): run
// beside them on a 2-core machine, the runners' lock pauses and drains stretched past
// the test's bounds (CI of 26 Nov: three cases failed there and passed alone).
const conditions = ["@hookline/source"]

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    name: "cluster (multi-process)",
    include: ["test/MultiProcess.test.ts"],
    // A ceiling, not a measurement.
    testTimeout: 30_000,
  },
})
