import { defineProject } from "vitest/config"

const conditions = ["@hookline/source"]

// The chat in headless Chromium: one browser for the file's cases, a built page, a real server.
export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: { name: "example-chat", include: ["test/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 180_000 },
})
