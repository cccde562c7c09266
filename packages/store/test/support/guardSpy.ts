// The guard tests' two tools: a spy that records the string keys a guard reads of a value,
// in order, with what the guard answered; and a guard that throws (a hostile getter)
// answering false, as `ByReference.guarded` makes it.

/** The string keys `guard` read of `value`, in order, and its answer. */
export const readsOf = (value: object, guard: (u: unknown) => boolean): { readonly read: ReadonlyArray<string>; readonly answer: boolean } => {
  const read: Array<string> = []
  const spy = new Proxy(value, {
    get: (target, key, receiver) => {
      if (typeof key === "string") read.push(key)
      return Reflect.get(target, key, receiver)
    },
  })
  const answer = guard(spy)
  return { read, answer }
}

/** `f()`, or false when it throws. */
export const safely = (f: () => boolean): boolean => {
  try {
    return f()
  } catch {
    return false
  }
}
