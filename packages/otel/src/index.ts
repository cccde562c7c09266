/**
 * @hookline/otel: OpenTelemetry GenAI spans and metrics for hookline agents.
 *
 * @since 0.1.0
 */
import * as Telemetry_ from "./Telemetry.js"
export { Telemetry_ as Telemetry }
export type Telemetry = Telemetry_.Telemetry
export { UseTelemetry } from "./Telemetry.js"
