import { defineProject } from "vitest/config"

const conditions = ["@hookline/source"]

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: { name: "example-cluster", include: ["test/**/*.test.ts"] },
})
