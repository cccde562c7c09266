import { defineProject } from "vitest/config"

export default defineProject({
  resolve: { conditions: ["@hookline/source"] },
  test: {
    name: "core",
    include: ["test/**/*.test.ts"],
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "../../tsconfig.json" },
  },
})
