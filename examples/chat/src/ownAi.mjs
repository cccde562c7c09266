// `pnpm start` runs the workspace's @hookline/ai-sdk from source, whose own devDependency
// is ai 6; the example is on ai 7. Registered before the server loads, this makes `ai` and
// `@ai-sdk/*` imported by the package's files resolve from the example, as an app's one
// `ai` does when it installs the package. Not needed outside this workspace.
import { register } from "node:module"

register("./ownAiHooks.mjs", import.meta.url)
