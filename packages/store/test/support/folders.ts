// Temporary folders the tests make and always remove.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

export const temporaryFolder = (label: string): { readonly path: string; readonly remove: () => void } => {
  const path = mkdtempSync(join(tmpdir(), `hookline-${label}-`))
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) }
}
