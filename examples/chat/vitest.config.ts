import { defineProject } from "vitest/config"

const conditions = ["@hookline/source"]
// @hookline/ai-sdk's source imports `ai` from the example (ai 7), as an app's one `ai`
// would be; in the workspace the package's own devDependency is ai 6 (src/ownAi.mjs
// does the same for `pnpm start`).
const dedupe = ["ai", "@ai-sdk/provider", "@ai-sdk/provider-utils"]

// The chat in headless Chromium: one browser for the file's cases, a built page, a real server.
export default defineProject({
  resolve: { conditions, dedupe },
  ssr: { resolve: { conditions } },
  test: { name: "example-chat", include: ["test/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 180_000 },
})
