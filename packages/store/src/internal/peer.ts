// The stores' database libraries are optional peers, imported only when a store opens.
// A missing one is a PeerMissing naming the package to install, not Node's bare
// "Cannot find package" from inside the store.
import * as StoreError from "../StoreError.js"

/** Node's error for a package that is not installed: ESM (import) and CommonJS (require) forms. */
const isNotInstalled = (cause: unknown, peer: string): boolean => {
  if (typeof cause !== "object" || cause === null) return false
  const { code, message } = cause as { readonly code?: unknown; readonly message?: unknown }
  return (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") &&
    typeof message === "string" && message.includes(`'${peer}'`)
}

/**
 * Runs `load` (a literal `import("pg")` at the call site, so bundlers still see it),
 * turning "not installed" into `PeerMissing`; any other failure is passed on as it is.
 */
export const importPeer = async <A>(peer: string, store: string, load: () => Promise<A>): Promise<A> => {
  try {
    return await load()
  } catch (cause) {
    throw isNotInstalled(cause, peer) ? StoreError.peerMissing(peer, store, cause) : cause
  }
}
