import { defineProject } from "vitest/config"

// The repository's own scripts (the docs checker, the demo's build skipping).
const conditions = ["@hookline/source"]

export default defineProject({
  // triggers-table.test.ts imports the packages: from their source, like the packages' tests.
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    name: "scripts",
    include: ["test/**/*.test.ts"],
    // Each test runs tsc or a build in a child process: slow on a shared 2-core machine.
    testTimeout: 120_000,
  },
})
