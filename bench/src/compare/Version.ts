/**
 * The version of an installed package, from its package.json, as the report prints it
 * ("–" when the package hides or lacks it).
 */
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)

export const versionOf = (name: string): string => {
  try {
    const pkg: unknown = require(`${name}/package.json`)
    const version = (pkg as { version?: unknown }).version
    return typeof version === "string" ? version : "–"
  } catch {
    return "–"
  }
}
