// The two points a wrap hook sits at, as a leaf that imports nothing of the package:
// errors and hook events name a point without importing WrapHook (which imports them),
// so core's data modules form no import circle. WrapHook.ts is the public face.

export type WrapPoint = "WrapInference" | "WrapToolUse"
