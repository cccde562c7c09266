import { defineProject } from "vitest/config"

// Tests run against src through the "@hookline/source" export condition, never a stale dist.
const conditions = ["@hookline/source"]

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    name: "middleware",
    include: ["test/**/*.test.ts"],
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "../../tsconfig.json" },
  },
})
