import { defineProject } from "vitest/config"

// The repository's own scripts (the docs checker, the demo's build skipping).
export default defineProject({
  test: {
    name: "scripts",
    include: ["test/**/*.test.ts"],
    // Each test runs tsc or a build in a child process: slow on a shared 2-core machine.
    testTimeout: 120_000,
  },
})
