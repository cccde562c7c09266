// Disarming a thenable a pure hook returned or threw, as a leaf: Hook.ts and the hook
// runtime (stack/dispatch.ts) both use it, and Hook.ts must not import the runtime,
// which imports Hook.ts.

const ignore = (): void => {}

/**
 * Handles the rejection of a thenable a pure hook returned or threw (an async function
 * registered as a pure hook): nobody awaits it, and an unhandled rejection kills a Node
 * process in its default mode. True when `value` was a thenable.
 */
export const disarm = (value: unknown): boolean => {
  if ((typeof value !== "object" || value === null) && typeof value !== "function") return false
  try {
    const then = (value as { readonly then?: unknown }).then
    if (typeof then !== "function") return false
    then.call(value, undefined, ignore)
    return true
  } catch {
    // A throwing `then` getter or call: nothing was left pending by us.
    return false
  }
}
