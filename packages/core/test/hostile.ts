// Thrown values that break a naive read: each must still give a text, never a throw.
export const hostileThrows = (): ReadonlyArray<readonly [string, unknown]> => {
  const { proxy: revoked, revoke } = Proxy.revocable({}, {})
  revoke()
  const trap = () => {
    throw new Error("trap")
  }
  const getterError = new Error("hidden")
  Object.defineProperty(getterError, "message", { get: trap })
  return [
    ["an Error whose message getter throws", getterError],
    ["an object whose message getter throws", Object.defineProperty({}, "message", { get: trap, enumerable: true })],
    ["a Proxy whose every trap throws", new Proxy({}, { get: trap, has: trap, getPrototypeOf: trap, ownKeys: trap, getOwnPropertyDescriptor: trap })],
    ["a revoked Proxy", revoked],
    ["an object whose toString and Symbol.toPrimitive throw", { toString: trap, [Symbol.toPrimitive]: trap, toJSON: trap }],
    ["a function whose toString throws", Object.assign(() => {}, { toString: trap })],
  ]
}
