/**
 * What differs between the `ai` majors the driver runs on (6 and 7), in one place.
 * The installed major is read once from what `ai` exports (`registerTelemetry` is new in
 * AI SDK 7), so one build serves both; on 7 the driver uses the non-deprecated names.
 *
 * @internal
 */
import * as Ai from "ai"

type CallArguments = Parameters<typeof Ai.generateText>[0]
// The keys of the installed major's types (the runtime check below picks the same ones).
type InstructionsKey = "instructions" extends keyof CallArguments ? "instructions" : "system"
type TelemetryKey = "telemetry" extends keyof CallArguments ? "telemetry" : "experimental_telemetry"

/** The AI SDK's telemetry settings, as the installed major types them. */
export type TelemetrySettings = NonNullable<
  CallArguments extends { readonly telemetry?: infer T } ? T : CallArguments extends { readonly experimental_telemetry?: infer T } ? T : never
>

/** The `ai` major installed beside the driver. */
export const major: 6 | 7 = "registerTelemetry" in Ai ? 7 : 6

/**
 * The model specification versions `ai` accepts in this major (its `resolveLanguageModel`):
 * 6 drives v3 and adapts v2; 7 drives v4 and adapts v3 and v2.
 */
export const modelVersions: ReadonlyArray<string> = Object.freeze(major === 7 ? ["v2", "v3", "v4"] : ["v2", "v3"])

/** The call arguments of a prompt's instructions: `instructions` on 7 (`system` is its deprecated alias). */
export const instructionsArgument = (text: string): { readonly [K in InstructionsKey]: string } =>
  (major === 7 ? { instructions: text } : { system: text }) as { readonly [K in InstructionsKey]: string }

/** The call argument of telemetry settings: `telemetry` on 7 (`experimental_telemetry` is its deprecated alias). */
export const telemetryArgument = (settings: TelemetrySettings): { readonly [K in TelemetryKey]: TelemetrySettings } =>
  (major === 7 ? { telemetry: settings } : { experimental_telemetry: settings }) as { readonly [K in TelemetryKey]: TelemetrySettings }

/**
 * The telemetry settings a call gets: the driver's as given, or, when it has none, the
 * AI SDK's telemetry turned off, so that a registered integration (AI SDK 7) does not
 * report the call a second time beside hookline's own `chat` span (`@hookline/otel`).
 */
export const callTelemetry = (settings: TelemetrySettings | undefined): TelemetrySettings =>
  settings ?? ({ isEnabled: false } as TelemetrySettings)

/** The stream of all parts of a `streamText` result: `stream` on 7 (`fullStream` is its deprecated alias). */
export const partsOf = <R extends { readonly fullStream: unknown }>(result: R): R["fullStream"] =>
  major === 7 ? (result as unknown as { readonly stream: R["fullStream"] }).stream : result.fullStream

/**
 * The usage of a whole `generateText` call: `usage` on 7 (it totals all steps there;
 * `totalUsage` is its deprecated alias); `totalUsage` on 6, where `usage` is the last
 * step's. The driver asks for one step, so both are that step's usage either way.
 */
export const callUsageOf = <U>(result: { readonly usage: U; readonly totalUsage: U }): U =>
  major === 7 ? result.usage : result.totalUsage
