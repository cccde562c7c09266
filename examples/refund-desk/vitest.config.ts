import { defineProject } from "vitest/config"

const conditions = ["@hookline/source"]

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: { name: "example-refund-desk", include: ["test/**/*.test.ts"] },
})
