import { defineProject } from "vitest/config"

const conditions = ["@hookline/source"]

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  // Property runs of the hook laws: seconds on a loaded 2-core machine, not the default 5.
  test: { name: "example-property-testing", include: ["test/**/*.test.ts"], testTimeout: 30_000 },
})
