import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

// The driver's own suite (packages/ai-sdk/test), run from source like every other project,
// with `ai` and the providers resolved from this package: ai 7 and @ai-sdk/openai 4.
const conditions = ["@hookline/source"]
const dedupe = ["ai", "@ai-sdk/openai", "@ai-sdk/provider", "@ai-sdk/provider-utils"]

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  resolve: { conditions, dedupe },
  ssr: { resolve: { conditions } },
  test: {
    name: "ai-sdk-v7",
    dir: fileURLToPath(new URL("../../packages/ai-sdk/test", import.meta.url)),
    include: ["http.test.ts", "modelVersions.test.ts", "AiSdkDriver.test.ts", "telemetry.test.ts", "chat/*.test.ts", "agent/toAiSdkAgent.test.ts", "agent/agentTurn.prop.test.ts"],
    env: { AI_SDK_MAJOR: "7" },
  },
})
