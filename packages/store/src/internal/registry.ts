// A registry of fast paths kept per store object (a WeakMap: a wrapper or a spread copy of
// a store is another object, and is not found). Shared by every copy of this module in
// the process: the CommonJS build bundles each entry point (`@hookline/store`,
// `@hookline/store/testing`) with its own copy of the internal modules, and a store
// registered through one must be found through the other. The key names the shape of
// what is kept (bump it when that shape changes).
export const registry = <A>(name: string): WeakMap<object, A> => {
  const shared = globalThis as unknown as Record<symbol, WeakMap<object, A> | undefined>
  const key = Symbol.for(`@hookline/store/${name}`)
  return (shared[key] ??= new WeakMap<object, A>())
}
