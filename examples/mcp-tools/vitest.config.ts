import { defineProject } from "vitest/config"

const conditions = ["@hookline/source"]

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  // Each test starts a real server process (about 2 s on a loaded 2-core machine): a ceiling.
  test: { name: "example-mcp-tools", include: ["test/**/*.test.ts"], testTimeout: 30_000 },
})
