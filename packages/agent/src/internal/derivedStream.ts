// A driver's `stream` made by `Driver.streamFromGenerate`, and the `generate` it calls.
// Such a stream is one call of `generate`, then its text as one delta, its tool calls
// and a Finish; a streaming run that knows this calls `generate` itself and emits the
// same delta, without building a stream per model call.
import type { DriverShape } from "./driverContract.js"

const derived = new WeakMap<DriverShape["stream"], DriverShape["generate"]>()

/** Records that `stream` is `generate`'s stream form; returns `stream`. */
export const remember = (stream: DriverShape["stream"], generate: DriverShape["generate"]): DriverShape["stream"] => {
  derived.set(stream, generate)
  return stream
}

/** The `generate` a stream made by `streamFromGenerate` calls, if it is one. */
export const generateOf = (stream: DriverShape["stream"]): DriverShape["generate"] | undefined => derived.get(stream)
