/**
 * OpenTelemetry for hookline: one capability that puts a run, its model calls, its
 * tools and every hook execution in your tracing backend, with the GenAI semantic
 * conventions' names (`invoke_agent`, `chat`, `execute_tool`), and the conventions'
 * duration and token metrics. Message text, tool arguments and results, and error
 * messages are left out unless `captureContent` is on.
 *
 * @since 0.1.0
 */
import {
  type Attributes,
  context as otelContext,
  type Context as OtelContext,
  type Histogram,
  type Link,
  type Meter,
  metrics,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer as OtelTracer,
} from "@opentelemetry/api"
import { type AgentState, Hook, type HookContext, type HookExecuted, HookTriggers, type InferenceRequest, type InferenceResponse, type ToolExecution, WrapHook } from "@hookline/core"
import { AgentBuilder, Driver } from "@hookline/agent"
import { Context, Effect, Option, Tracer } from "effect"
import * as Bridge from "./internal/bridge.js"
import * as Content from "./internal/content.js"
import * as Current from "./internal/current.js"
import { Attr, Hookline, Metric, Operation, scope, Value } from "./internal/names.js"
import { type Attempt, type ChatShape, type Open, type Run, type RunModel, Runs } from "./internal/runs.js"
import * as Traceparent from "./internal/traceparent.js"

/**
 * A W3C trace context, as a checkpoint's envelope keeps it (`@hookline/store` Envelope).
 *
 * @since 0.1.0
 * @category models
 */
export interface TraceContext {
  readonly traceparent: string
  readonly tracestate?: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Default: `trace.getTracer("@hookline/otel")` (the global provider). */
  readonly tracer?: OtelTracer | undefined
  /** Default: `metrics.getMeter("@hookline/otel")` (the global provider). */
  readonly meter?: Meter | undefined
  /**
   * Record message text, system instructions, tool arguments and results, in the
   * conventions' JSON shape, as the hooks left them (after redaction). Default `false`:
   * no content and no error message anywhere (errors are recorded by `error.type`).
   */
  readonly captureContent?: boolean | undefined
  /** `gen_ai.agent.name`, and the run span's name `invoke_agent {agentName}`. */
  readonly agentName?: string | undefined
  /** Each hook execution as a child span rather than a span event. Default `false`. */
  readonly hookSpans?: boolean | undefined
  /**
   * Where a resumed run finds the trace context its suspended run had, when another
   * process suspended it (a run suspended in this process is linked without it): the
   * envelope of its checkpoint, e.g. `(runId) => RunStore.load(store, runId).then((s) => s?.envelope?.traceContext)`.
   */
  readonly resumedFrom?: ((runId: string) => PromiseLike<TraceContext | undefined> | TraceContext | undefined) | undefined
}

/**
 * A telemetry instance: its capability, and the envelope its checkpoints keep.
 *
 * @since 0.1.0
 * @category models
 */
export interface Telemetry {
  /** What the agent is built with (`AgentBuilder.make(..., telemetry.capability)`). */
  readonly capability: AgentBuilder.Capability
  /**
   * The envelope of a run's checkpoint: its span's trace context while it runs, for
   * `UseCheckpoints(store, { envelope: telemetry.envelope })`.
   */
  readonly envelope: (state: AgentState) => { readonly traceContext: TraceContext } | undefined
}

const top = 1e9

const hrOf = (ms: number): [number, number] => [Math.floor(ms / 1000), Math.round((ms % 1000) * 1e6)]

const errorTypeOf = (u: unknown): string => {
  const tag = typeof u === "object" && u !== null ? (u as { _tag?: unknown })._tag : undefined
  return typeof tag === "string" && tag !== "" ? tag : Value.other
}

// The most severe of what a hook did, in one word.
const outcomeOf = (event: HookExecuted.HookExecuted): string =>
  event.outcome === "failed" || event.outcome === "skipped" ? event.outcome : event.effect ?? event.outcome

const failed = (span: Span, errorType: string): void => {
  span.setAttribute(Attr.errorType, errorType)
  span.setStatus({ code: SpanStatusCode.ERROR })
  // An exception event with its type only: a message may hold content.
  span.addEvent("exception", { "exception.type": errorType })
}

const requestAttributes = (request: InferenceRequest): Attributes => {
  const o = request.options
  const a: Attributes = {}
  if (o.temperature !== undefined) a[Attr.requestTemperature] = o.temperature
  if (o.topP !== undefined) a[Attr.requestTopP] = o.topP
  if (o.topK !== undefined) a[Attr.requestTopK] = o.topK
  if (o.maxOutputTokens !== undefined) a[Attr.requestMaxTokens] = o.maxOutputTokens
  if (o.seed !== undefined) a[Attr.requestSeed] = o.seed
  if (o.stopSequences !== undefined) a[Attr.requestStopSequences] = [...o.stopSequences]
  a[Attr.outputType] = request.responseFormat?.type === "json" ? "json" : "text"
  return a
}

const responseAttributes = (span: Span, response: InferenceResponse): void => {
  span.setAttribute(Attr.responseModel, response.modelId)
  const id = response.metadata["responseId"]
  if (typeof id === "string") span.setAttribute(Attr.responseId, id)
  span.setAttribute(Attr.responseFinishReasons, [Content.finishReason(response.finishReason)])
  const u = response.usage
  span.setAttribute(Attr.usageInputTokens, u.inputTokens)
  span.setAttribute(Attr.usageOutputTokens, u.outputTokens)
  if (u.cachedInputTokens !== undefined) span.setAttribute(Attr.usageCacheReadInputTokens, u.cachedInputTokens)
  if (u.reasoningTokens !== undefined) span.setAttribute(Attr.usageReasoningOutputTokens, u.reasoningTokens)
}

// The OpenTelemetry context under an Effect parent span: ours (a run's current span, a
// model call's or a tool's), or the active one.
const contextOfParent = (span: Tracer.AnySpan | undefined): OtelContext => {
  if (span instanceof Current.RunSpan) {
    return span.current !== undefined ? trace.setSpan(otelContext.active(), span.current) : contextOfParent(span.outer)
  }
  return Bridge.contextOf(span) ?? otelContext.active()
}

/**
 * A telemetry instance over the tracer and meter of `options` (the global ones by
 * default): give its `capability` to the agent, and its `envelope` to
 * `UseCheckpoints` for resumed runs to link to their suspended span in another process.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): Telemetry => {
  const tracer = options.tracer ?? trace.getTracer(scope)
  const meter = options.meter ?? metrics.getMeter(scope)
  const content = options.captureContent === true
  const hookSpans = options.hookSpans === true
  const agentName = options.agentName
  const bridge = Bridge.make(tracer)
  const runs = new Runs()
  const duration: Histogram = meter.createHistogram(Metric.operationDuration, {
    unit: "s",
    description: "GenAI operation duration",
    advice: { explicitBucketBoundaries: [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92] },
  })
  const tokens: Histogram = meter.createHistogram(Metric.tokenUsage, {
    unit: "{token}",
    description: "Measures number of input and output tokens used",
    advice: { explicitBucketBoundaries: [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864] },
  })

  const baseAttributes = (provider: string | undefined, operation: string, model?: string, server?: Driver.ModelServer): Attributes => ({
    [Attr.operationName]: operation,
    ...(provider === undefined ? {} : { [Attr.providerName]: provider }),
    ...(model === undefined ? {} : { [Attr.requestModel]: model }),
    // Where the driver sends the call, when it knows (DriverShape.model.server).
    ...(server === undefined ? {} : server.port === undefined ? { [Attr.serverAddress]: server.address } : { [Attr.serverAddress]: server.address, [Attr.serverPort]: server.port }),
  })

  // The driver the run was given, as it names its model.
  const runModel = Effect.map(Effect.serviceOption(Driver.Driver), (d) => {
    if (Option.isNone(d)) return undefined
    const model = Driver.modelOf(d.value)
    if (model !== undefined) return model
    const id = (d.value as { readonly modelId?: unknown }).modelId
    return typeof id === "string" ? { provider: undefined, id, server: undefined } : undefined
  })

  // --- the run ---
  const linksOf = (state: AgentState): Effect.Effect<ReadonlyArray<Link>> => {
    const resumed = state.execution.steps.length > 0 || state.execution.pendingCalls !== undefined
    if (!resumed) return Effect.succeed([])
    const here = runs.takeSuspended(state.id)
    if (here !== undefined) return Effect.succeed([{ context: here, attributes: { [Hookline.runResumed]: true } }])
    const from = options.resumedFrom
    if (from === undefined) return Effect.succeed([])
    return Effect.tryPromise(async () => await from(state.id)).pipe(
      Effect.map((tc) => {
        const sc = Traceparent.parse(tc?.traceparent)
        return sc === undefined ? [] : [{ context: sc, attributes: { [Hookline.runResumed]: true } }]
      }),
      Effect.orElseSucceed(() => []),
    )
  }

  const startRun = Hook.effect((ctx: HookContext) =>
    Effect.gen(function*() {
      const state = ctx.state
      const model = yield* runModel
      // The run's own current span (UseAroundRun), over the caller's parent span.
      const given = Option.getOrUndefined(yield* Effect.serviceOption(Tracer.ParentSpan))
      const live = given instanceof Current.RunSpan ? given : undefined
      // A subagent's run: under the calling tool's span (the tool runs in its context).
      const parent = contextOfParent(live === undefined ? given : live.outer)
      const links = yield* linksOf(state)
      const startedAt = Date.now()
      const span = tracer.startSpan(agentName === undefined ? Operation.invokeAgent : `${Operation.invokeAgent} ${agentName}`, {
        kind: SpanKind.INTERNAL,
        startTime: hrOf(startedAt),
        links: [...links],
        attributes: {
          ...baseAttributes(model?.provider, Operation.invokeAgent, model?.id),
          [Attr.conversationId]: state.id,
          ...(agentName === undefined ? {} : { [Attr.agentName]: agentName }),
        },
      }, parent)
      runs.open.set(state.id, {
        span,
        ctx: trace.setSpan(parent, span),
        startedAt,
        chat: undefined,
        tools: new Map(),
        descriptions: undefined,
        toolsSeen: undefined,
        provider: model?.provider,
        live,
        shape: shapeOf(model, state.id),
      })
      if (live !== undefined) live.current = span
      return ctx
    })
  )

  const endOpen = (o: Open, errorType: string): void => {
    failed(o.span, errorType)
    o.span.end()
  }

  const endRun = Hook.observe((ctx: HookContext) => {
    const state = ctx.state
    const run = runs.open.get(state.id)
    if (run === undefined) return
    runs.open.delete(state.id)
    // What the run left open (an abort, a failure in between) ends with it.
    if (run.chat !== undefined) endOpen(run.chat, Value.interrupted)
    for (const tool of run.tools.values()) endOpen(tool, Value.interrupted)
    const span = run.span
    const execution = state.execution
    span.setAttribute(Hookline.runStatus, execution.status)
    for (const signal of execution.stopSignals) {
      span.addEvent(Hookline.stopSignalEvent, {
        [Hookline.stopReason]: signal.reason,
        [Hookline.stopSource]: signal.source,
        ...(content ? { [Hookline.stopMessage]: signal.message } : {}),
      })
    }
    const highest = execution.stopSignals.reduce<typeof execution.stopSignals[number] | undefined>(
      (best, s) => (best === undefined || (s.priority ?? 0) > (best.priority ?? 0) ? s : best),
      undefined,
    )
    if (highest !== undefined) span.setAttribute(Hookline.runStopReason, highest.reason)
    span.setAttribute(Attr.usageInputTokens, execution.usage.inputTokens)
    span.setAttribute(Attr.usageOutputTokens, execution.usage.outputTokens)
    if (execution.status === "suspended") {
      const pending = execution.pendingCalls ?? []
      span.addEvent(Hookline.runSuspended, { [Hookline.runPendingCalls]: pending.map((p) => p.toolCall.id) })
      runs.suspend(state.id, span.spanContext())
    }
    let errorType: string | undefined
    if (execution.status === "failed") {
      errorType = errorTypeOf(execution.errors[execution.errors.length - 1])
      failed(span, errorType)
    }
    const endedAt = Date.now()
    duration.record((endedAt - run.startedAt) / 1000, {
      ...baseAttributes(run.provider, Operation.invokeAgent),
      ...(errorType === undefined ? {} : { [Attr.errorType]: errorType }),
    })
    span.end(hrOf(endedAt))
  })

  // --- model calls ---
  const chat = WrapHook.inference((ctx, next) => {
    const run = runs.open.get(ctx.state.id)
    if (run === undefined) return next(ctx)
    const shape = run.shape
    const request = ctx.request
    const startedAt = Date.now()
    const span = tracer.startSpan(shape.chatName, {
      kind: SpanKind.CLIENT,
      startTime: hrOf(startedAt),
      attributes: request === undefined ? shape.chatStart : startAttributes(shape, request),
    }, run.ctx)
    if (request !== undefined) {
      if (run.toolsSeen !== request.tools) {
        run.toolsSeen = request.tools
        run.descriptions = new Map(request.tools.map((t) => [t.name, t.description]))
      }
      if (content) {
        span.setAttribute(Attr.inputMessages, Content.inputMessages(request))
        const system = Content.systemInstructions(request)
        if (system !== undefined) span.setAttribute(Attr.systemInstructions, system)
      }
    }
    const spanCtx = trace.setSpan(run.ctx, span)
    const attempts: Array<Attempt> = []
    const open = { span, ctx: spanCtx, startedAt, attempts, model: shape.model?.id, provider: shape.model?.provider }
    run.chat = open
    if (run.live !== undefined) run.live.current = span
    const around = <E>(call: Effect.Effect<InferenceResponse, E>, attempt: Driver.Attempt) =>
      Effect.suspend(() => {
        const a: Attempt = { model: attempt.model?.id, provider: attempt.model?.provider, server: attempt.model?.server, startedAt: Date.now(), endedAt: undefined, error: undefined }
        attempts.push(a)
        return Effect.onExit(call, (exit) =>
          Effect.sync(() => {
            a.endedAt = Date.now()
            if (exit._tag === "Failure") a.error = exit.cause.reasons.some((r) => r._tag === "Fail") ? errorTypeOf(exit.cause.reasons.find((r) => r._tag === "Fail")?.error) : Value.interrupted
          }))
      })
    const called = Bridge.within(next(ctx), spanCtx, bridge, (context) => Context.add(context, Driver.AroundCall, around))
    return Effect.onExit(called, (exit) =>
      Effect.sync(() => {
        const endedAt = Date.now()
        attemptSpans(open, endedAt)
        if (exit._tag === "Success") {
          responseAttributes(span, exit.value)
          const u = exit.value.usage
          const metric = metricAttributes(shape, exit.value.modelId)
          tokens.record(u.inputTokens, metric.input)
          tokens.record(u.outputTokens, metric.output)
          duration.record((endedAt - startedAt) / 1000, metric.call)
          // Ended by AfterInference, once its hooks (a redaction) ran: see chatEnd.
          return
        }
        const failure = exit.cause.reasons.find((r) => r._tag === "Fail")
        const errorType = failure === undefined ? Value.interrupted : errorTypeOf(failure.error)
        duration.record((endedAt - startedAt) / 1000, { ...shape.metricBase, [Attr.errorType]: errorType })
        if (run.chat === open) run.chat = undefined
        if (run.live !== undefined) run.live.current = run.span
        failed(span, errorType)
        span.end(hrOf(endedAt))
      }))
  })

  // What a run's chat spans and metrics share, built once per run (the run's driver and
  // so its model do not change within it).
  const shapeOf = (model: RunModel | undefined, runId: string): ChatShape => {
    const metricBase = Object.freeze(baseAttributes(model?.provider, Operation.chat, model?.id, model?.server))
    return {
      model,
      chatName: model === undefined ? Operation.chat : `${Operation.chat} ${model.id}`,
      chatStart: Object.freeze({ ...metricBase, [Attr.conversationId]: runId, ...(agentName === undefined ? {} : { [Attr.agentName]: agentName }) }),
      metricBase,
      lastOptions: undefined,
      lastFormat: undefined,
      lastStart: undefined,
      lastResponseModel: undefined,
      lastMetric: undefined,
    }
  }

  // A chat span's start attributes: the run's, with the request's options (the same
  // options object call after call, unless a hook edited the request: kept once).
  const startAttributes = (shape: ChatShape, request: InferenceRequest): Attributes => {
    if (shape.lastStart !== undefined && shape.lastOptions === request.options && shape.lastFormat === request.responseFormat) return shape.lastStart
    shape.lastOptions = request.options
    shape.lastFormat = request.responseFormat
    shape.lastStart = Object.freeze({ ...shape.chatStart, ...requestAttributes(request) })
    return shape.lastStart
  }

  // A call's metric attributes by the model that answered (kept for the last one).
  const metricAttributes = (shape: ChatShape, responseModel: string): NonNullable<ChatShape["lastMetric"]> => {
    if (shape.lastMetric !== undefined && shape.lastResponseModel === responseModel) return shape.lastMetric
    const call = Object.freeze({ ...shape.metricBase, [Attr.responseModel]: responseModel })
    shape.lastResponseModel = responseModel
    shape.lastMetric = {
      call,
      input: Object.freeze({ ...call, [Attr.tokenType]: Value.input }),
      output: Object.freeze({ ...call, [Attr.tokenType]: Value.output }),
    }
    return shape.lastMetric
  }

  // A call with more than one attempt (a retry, a fallback): a child span per attempt,
  // each naming its own model.
  const attemptSpans = (open: Run["chat"] & object, endedAt: number): void => {
    if (open.attempts.length < 2) return
    open.span.setAttribute(Hookline.attempts, open.attempts.length)
    open.attempts.forEach((a, i) => {
      const span = tracer.startSpan(a.model === undefined ? Operation.chat : `${Operation.chat} ${a.model}`, {
        kind: SpanKind.CLIENT,
        startTime: hrOf(a.startedAt),
        attributes: { ...baseAttributes(a.provider, Operation.chat, a.model, a.server), [Hookline.attempt]: i + 1 },
      }, open.ctx)
      if (a.error !== undefined) failed(span, a.error)
      span.end(hrOf(a.endedAt ?? endedAt))
    })
  }

  const chatEnd = Hook.observe((ctx: HookContext) => {
    const run = runs.open.get(ctx.state.id)
    const open = run?.chat
    if (run === undefined || open === undefined) return
    run.chat = undefined
    if (run.live !== undefined) run.live.current = run.span
    if (content && ctx.response !== undefined) open.span.setAttribute(Attr.outputMessages, Content.outputMessages(ctx.response))
    open.span.end()
  })

  // --- tools ---
  const toolStart = Hook.observe((ctx: HookContext) => {
    const run = runs.open.get(ctx.state.id)
    const call = ctx.toolCall
    if (run === undefined || call === undefined) return
    if (ctx.trigger === "AfterToolUse") {
      // Concurrent calls: the AfterToolUse hooks of each call run in call order, after all ran.
      const open = run.tools.get(call.id)
      if (open !== undefined && run.live !== undefined) run.live.current = open.span
      return
    }
    const startedAt = Date.now()
    const description = run.descriptions?.get(call.name)
    const span = tracer.startSpan(`${Operation.executeTool} ${call.name}`, {
      kind: SpanKind.INTERNAL,
      startTime: hrOf(startedAt),
      attributes: {
        [Attr.operationName]: Operation.executeTool,
        [Attr.toolName]: call.name,
        [Attr.toolCallId]: call.id,
        [Attr.toolType]: Value.function,
        [Attr.conversationId]: ctx.state.id,
        ...(description === undefined || description === "" ? {} : { [Attr.toolDescription]: description }),
      },
    }, run.ctx)
    run.tools.set(call.id, { span, ctx: trace.setSpan(run.ctx, span), startedAt })
    if (run.live !== undefined) run.live.current = span
  })

  const tool = WrapHook.toolUse((ctx, next) => {
    const open = ctx.toolCall === undefined ? undefined : runs.open.get(ctx.state.id)?.tools.get(ctx.toolCall.id)
    return open === undefined ? next(ctx) : Bridge.within(next(ctx), open.ctx, bridge)
  })

  const toolEnd = Hook.observe((ctx: HookContext) => {
    const run = runs.open.get(ctx.state.id)
    const call = ctx.toolCall
    const open = call === undefined ? undefined : run?.tools.get(call.id)
    if (run === undefined || call === undefined || open === undefined) return
    run.tools.delete(call.id)
    if (run.live !== undefined) run.live.current = run.span
    const span = open.span
    const execution: ToolExecution | undefined = ctx.toolExecution
    if (content) span.setAttribute(Attr.toolCallArguments, Content.value(call.arguments))
    if (execution !== undefined) {
      span.setAttribute(Hookline.toolStatus, execution.status)
      if (execution.status === "success") {
        if (content) span.setAttribute(Attr.toolCallResult, Content.value(execution.output))
      } else if (execution.status === "failure") {
        if (content) span.setAttribute(Attr.toolCallResult, Content.value(execution.error.message))
        failed(span, execution.error._tag)
      } else {
        if (content) span.setAttribute(Attr.toolCallResult, Content.value(execution.reason))
        failed(span, Value.blocked)
      }
    }
    span.end()
  })

  // --- hook executions ---
  const listener: HookExecuted.EventSink = (event) => {
    if (event.hook.startsWith("otel:")) return
    const run = event.runId === undefined ? undefined : runs.open.get(event.runId)
    if (run === undefined) return
    const inference = event.trigger === "BeforeInference" || event.trigger === "AfterInference" || event.trigger === "WrapInference"
    const target: Open = (event.toolCallId === undefined ? undefined : run.tools.get(event.toolCallId))
      ?? (inference ? run.chat : undefined) ?? run
    const attributes = {
      [Hookline.hookName]: event.hook,
      [Hookline.hookTrigger]: event.trigger,
      [Hookline.hookOutcome]: outcomeOf(event),
      [Hookline.hookDurationMs]: event.durationMs,
    }
    if (hookSpans) {
      tracer.startSpan(`${Hookline.hookSpan} ${event.hook}`, { kind: SpanKind.INTERNAL, startTime: hrOf(event.startedAt), attributes }, target.ctx)
        .end(hrOf(event.startedAt + event.durationMs))
    } else {
      target.span.addEvent(Hookline.hookEvent, attributes, hrOf(event.startedAt))
    }
  }

  const capability = AgentBuilder.UseAll(
    AgentBuilder.UseHook(startRun, { name: "otel:run", triggers: "BeforeExecution", priority: top, onError: "skip" }),
    AgentBuilder.UseHook(endRun, { name: "otel:run_end", triggers: "AfterExecution", priority: -top, onError: "skip" }),
    AgentBuilder.UseHook(chatEnd, { name: "otel:chat_end", triggers: "AfterInference", priority: -top, onError: "skip" }),
    AgentBuilder.UseHook(toolStart, { name: "otel:tool", triggers: HookTriggers.of("BeforeToolUse", "AfterToolUse"), priority: top, onError: "skip" }),
    AgentBuilder.UseHook(toolEnd, { name: "otel:tool_end", triggers: "AfterToolUse", priority: -top, onError: "skip" }),
    AgentBuilder.UseWrap(chat, { name: "otel:chat", priority: top }),
    AgentBuilder.UseWrap(tool, { name: "otel:execute_tool", priority: top }),
    AgentBuilder.UseHookListener(listener),
    AgentBuilder.UseAroundRun(Current.around),
  )

  const envelope = (state: AgentState) => {
    const run = runs.open.get(state.id)
    return run === undefined ? undefined : Object.freeze({ traceContext: Object.freeze({ traceparent: Traceparent.format(run.span.spanContext()) }) })
  }

  return Object.freeze({ capability, envelope })
}

/**
 * OpenTelemetry spans and metrics for every run of the agent: `invoke_agent` per run,
 * `chat` per model call, `execute_tool` per tool call, every hook execution as a span
 * event (or span), content only with `captureContent`. `make(options).capability`.
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseTelemetry = (options: Options = {}): AgentBuilder.Capability => make(options).capability

