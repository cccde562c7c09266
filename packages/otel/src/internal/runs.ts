// The spans of the runs in flight, by run id: the run's, its open model call's and its
// open tool calls'. One per telemetry instance; an entry lives from BeforeExecution to
// AfterExecution. The trace contexts of suspended runs are kept (bounded) for a resume
// in this process to link to.
import type { Attributes, Context as OtelContext, Span, SpanContext } from "@opentelemetry/api"
import type { Driver } from "@hookline/agent"
import type { RunSpan } from "./current.js"

export interface Open {
  readonly span: Span
  readonly ctx: OtelContext
  readonly startedAt: number
}

export interface Chat extends Open {
  /** The attempts of this call (each model call under a retry or fallback). */
  readonly attempts: Array<Attempt>
  readonly model: string | undefined
  readonly provider: string | undefined
}

export interface Attempt {
  readonly model: string | undefined
  readonly provider: string | undefined
  readonly server: Driver.ModelServer | undefined
  readonly startedAt: number
  endedAt: number | undefined
  error: string | undefined
}

export interface Run extends Open {
  chat: Chat | undefined
  readonly tools: Map<string, Open>
  /** Tool descriptions from the last request, by name (gen_ai.tool.description). */
  descriptions: ReadonlyMap<string, string> | undefined
  /** The tool definitions `descriptions` was made from (a request's, the same call after call). */
  toolsSeen: unknown
  readonly provider: string | undefined
  /** The run's current span in its fiber (logs read it); `undefined` when not wrapped. */
  readonly live: RunSpan | undefined
  readonly shape: ChatShape
}

/** The model a run's driver names. */
export interface RunModel {
  readonly provider: string | undefined
  readonly id: string
  readonly server?: Driver.ModelServer | undefined
}

/** What a run's chat spans and metrics share, and the last request's and response's attributes. */
export interface ChatShape {
  readonly model: RunModel | undefined
  readonly chatName: string
  readonly chatStart: Attributes
  readonly metricBase: Attributes
  lastOptions: unknown
  lastFormat: unknown
  lastStart: Attributes | undefined
  lastResponseModel: string | undefined
  lastMetric: { readonly call: Attributes; readonly input: Attributes; readonly output: Attributes } | undefined
}

const keptSuspensions = 1_024

export class Runs {
  readonly open = new Map<string, Run>()
  private readonly suspended = new Map<string, SpanContext>()

  suspend(runId: string, sc: SpanContext): void {
    this.suspended.delete(runId)
    this.suspended.set(runId, sc)
    if (this.suspended.size > keptSuspensions) this.suspended.delete(this.suspended.keys().next().value as string)
  }

  takeSuspended(runId: string): SpanContext | undefined {
    const sc = this.suspended.get(runId)
    if (sc !== undefined) this.suspended.delete(runId)
    return sc
  }
}
