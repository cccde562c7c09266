// The resolve hook src/ownAi.mjs registers (it runs in the loader thread).
const packageFiles = new URL("../../../packages/ai-sdk/", import.meta.url).href
const example = new URL("../package.json", import.meta.url).href
const sdk = /^(ai|@ai-sdk\/[^/]+)(\/.*)?$/

export const resolve = (specifier, context, next) =>
  sdk.test(specifier) && context.parentURL?.startsWith(packageFiles) ? next(specifier, { ...context, parentURL: example }) : next(specifier, context)
