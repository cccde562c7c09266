// Loaded with --import before the dist smoke: `ai` and `@ai-sdk/*` required or imported
// by @hookline/ai-sdk's own files (its dist) resolve from this package (ai 7,
// @ai-sdk/openai 4) instead of the package's devDependencies (ai 6), as they would in an
// app that installs ai 7 beside it. Synchronous hooks (Node >= 22.15) also see `require`
// from the CJS build; there a changed parentURL is not used, so the path is resolved here.
import { createRequire, registerHooks } from "node:module"
import { pathToFileURL } from "node:url"

const driverFiles = new URL("../../packages/ai-sdk/", import.meta.url).href
const here = new URL("./package.json", import.meta.url).href
const fromHere = createRequire(here)
const sdk = /^(ai|@ai-sdk\/[^/]+)(\/.*)?$/

registerHooks({
  resolve: (specifier, context, nextResolve) => {
    if (!sdk.test(specifier) || !context.parentURL?.startsWith(driverFiles)) return nextResolve(specifier, context)
    if (context.conditions.includes("require")) return { url: pathToFileURL(fromHere.resolve(specifier)).href, shortCircuit: true }
    return nextResolve(specifier, { ...context, parentURL: here })
  },
})
