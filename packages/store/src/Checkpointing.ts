/**
 * Checkpointing as a capability: `UseCheckpoints(store)` registers hooks that save the
 * run's deltas and journal every model answer and tool result, and gives the agent the
 * loader behind `agent.resume(runId)`. The loop knows no store: it only runs hooks.
 *
 * - BeforeExecution: a checkpoint (the first of a new run, or the delta of a resumed one).
 * - AfterInference, AfterToolUse (`every: "tool"`): the model's answer and each tool
 *   result go to the journal, keyed by the execution and the step or the `toolCallId`,
 *   before the loop commits them.
 * - BeforeInference, BeforeToolUse (on a resumed run): an answer or a result already in
 *   the journal is given back instead of calling the model or the tool again, so the
 *   unfinished step replays with the same tool call ids and no journaled tool runs twice.
 * - AfterStep, AfterExecution: a checkpoint.
 *
 * A crash after a tool's side effect and before its journal write is the one window
 * left: that call runs again on resume, with the same `idempotencyKey` in its context
 * (at-least-once, with the key to make it exactly-once where the tool's API allows).
 *
 * @since 0.1.0
 */
import { UseAll, UseHook, UseLoader, type AgentBuilder } from "@hookline/agent"
import { Codecs, Hook, HookContext, HookTriggers, type AgentState } from "@hookline/core"
import { Effect, Result } from "effect"
import * as RunStore from "./RunStore.js"
import * as StoreError from "./StoreError.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * `"tool"` (default): journal each model answer and tool result as it comes, so a
   * resumed run repeats no journaled call. `"step"`: checkpoints at step ends only; a
   * resumed run replays its unfinished step whole (the model and its tools again).
   */
  readonly every?: "tool" | "step" | undefined
}

/** The hooks run around everything else: replay first is not needed, saving last is. */
const lastPriority = -1_000_000

interface Tracked {
  saved: RunStore.Saved | undefined
  // The store refused a checkpoint of this run: another writer moved its head.
  conflict: StoreError.CheckpointConflict | undefined
  // Replaying: the run was resumed and the journal may still hold what comes next.
  replaying: boolean
  // Keys answered from the journal (not written again).
  readonly replayed: Set<string>
}

const inferenceKey = (state: AgentState): string =>
  `inference:${state.execution.startedAt ?? 0}:${state.execution.steps.length}`
const toolKey = (state: AgentState, toolCallId: string): string => `tool:${state.execution.startedAt ?? 0}:${toolCallId}`

const decodeEntry = <A>(runId: string, key: string, codec: Parameters<typeof Codecs.fromJson<A>>[0], body: string) => {
  const decoded = Codecs.fromJson(codec, body)
  if (Result.isFailure(decoded)) {
    const { path, message } = decoded.failure
    return Effect.fail(StoreError.decodeFailed(runId, path === "" ? `journal[${key}]` : `journal[${key}].${path}`, message.replace(/^cannot decode [^:]+: /, "")))
  }
  return Effect.succeed(decoded.success)
}

/**
 * The hooks and the loader, for a store.
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseCheckpoints = (store: RunStore.RunStore, options: Options = {}): AgentBuilder.Capability => {
  const journaling = (options.every ?? "tool") === "tool"
  // Per run id: what this agent last saved. Runs end with AfterExecution, which drops it.
  const runs = new Map<string, Tracked>()
  // Per run id: the conflict that ended its last run here, for `agent.resume` to fail
  // with (settle takes it; the next run on that id starts without it).
  const conflicts = new Map<string, StoreError.CheckpointConflict>()

  const load = (runId: string) =>
    Effect.flatMap(RunStore.loadEffect(store, runId), (saved) => {
      if (saved === undefined) return Effect.fail(StoreError.runNotFound(runId))
      runs.set(runId, { saved, conflict: undefined, replaying: journaling, replayed: new Set() })
      return Effect.succeed(saved.state)
    })

  const tracked = (state: AgentState): Tracked => {
    let entry = runs.get(state.id)
    if (entry === undefined) {
      entry = { saved: undefined, conflict: undefined, replaying: false, replayed: new Set() }
      runs.set(state.id, entry)
    }
    return entry
  }

  const checkpoint = (ctx: HookContext) =>
    Effect.suspend(() => {
      const entry = tracked(ctx.state)
      return Effect.map(
        Effect.tapError(RunStore.saveEffect(store, ctx.state, entry.saved), (error) =>
          Effect.sync(() => {
            if (error._tag === "CheckpointConflict") entry.conflict ??= error
          })),
        (saved) => {
          entry.saved = saved
          return ctx
        },
      )
    })

  // The run's last checkpoint; its tracking goes whatever happens (a conflict it met
  // stays, for `settle`).
  const finish = (ctx: HookContext) =>
    Effect.ensuring(
      checkpoint(ctx),
      Effect.sync(() => {
        const conflict = runs.get(ctx.state.id)?.conflict
        if (conflict !== undefined) conflicts.set(ctx.state.id, conflict)
        runs.delete(ctx.state.id)
      }),
    )

  // The end of a run `agent.resume` started: the loser of two resumes (its checkpoint
  // refused) fails the resume with the typed CheckpointConflict; its state was never
  // stored, and nothing of the winner's was overwritten.
  const settle = (state: AgentState) =>
    Effect.suspend(() => {
      const conflict = conflicts.get(state.id)
      conflicts.delete(state.id)
      return conflict === undefined ? Effect.succeed(state) : Effect.fail(conflict)
    })

  // A run started with `agent.run(state)` on a stored id (not through `resume`) goes on
  // from the stored head, and replays from the journal too.
  const start = Hook.effect((ctx: HookContext) =>
    Effect.suspend(() => {
      conflicts.delete(ctx.state.id)
      if (runs.get(ctx.state.id)?.saved !== undefined) return checkpoint(ctx)
      return Effect.flatMap(RunStore.loadEffect(store, ctx.state.id), (saved) => {
        runs.set(ctx.state.id, { saved, conflict: undefined, replaying: journaling && saved !== undefined, replayed: new Set() })
        return checkpoint(ctx)
      })
    })
  )

  const replayInference = Hook.effect((ctx: HookContext) =>
    Effect.suspend(() => {
      const entry = runs.get(ctx.state.id)
      if (entry === undefined || !entry.replaying || ctx.response !== undefined) return Effect.succeed(ctx)
      const key = inferenceKey(ctx.state)
      return Effect.flatMap(store.journalGet(ctx.state.id, key), (body) => {
        if (body === undefined) {
          // Nothing past this point was journaled: the rest of the run is new.
          entry.replaying = false
          return Effect.succeed(ctx)
        }
        entry.replayed.add(key)
        return Effect.map(decodeEntry(ctx.state.id, key, Codecs.InferenceResponse, body), (response) => HookContext.withResponse(ctx, response))
      })
    })
  )

  const journalInference = Hook.effect((ctx: HookContext) =>
    Effect.suspend(() => {
      const key = inferenceKey(ctx.state)
      if (ctx.response === undefined || runs.get(ctx.state.id)?.replayed.has(key) === true) return Effect.succeed(ctx)
      return Effect.as(store.journalPut(ctx.state.id, key, Codecs.toJson(Codecs.InferenceResponse, ctx.response)), ctx)
    })
  )

  const replayTool = Hook.effect((ctx: HookContext) =>
    Effect.suspend(() => {
      const entry = runs.get(ctx.state.id)
      const call = ctx.toolCall
      if (entry === undefined || !entry.replaying || call === undefined || ctx.toolExecution !== undefined || ctx.toolExecutionBlocked) {
        return Effect.succeed(ctx)
      }
      const key = toolKey(ctx.state, call.id)
      return Effect.flatMap(store.journalGet(ctx.state.id, key), (body) => {
        if (body === undefined) return Effect.succeed(ctx)
        entry.replayed.add(key)
        return Effect.map(decodeEntry(ctx.state.id, key, Codecs.ToolExecution, body), (execution) => HookContext.withToolExecution(ctx, execution))
      })
    })
  )

  const journalTool = Hook.effect((ctx: HookContext) =>
    Effect.suspend(() => {
      const call = ctx.toolCall
      const execution = ctx.toolExecution
      if (call === undefined || execution === undefined) return Effect.succeed(ctx)
      const key = toolKey(ctx.state, call.id)
      if (runs.get(ctx.state.id)?.replayed.has(key) === true) return Effect.succeed(ctx)
      return Effect.as(store.journalPut(ctx.state.id, key, Codecs.toJson(Codecs.ToolExecution, execution)), ctx)
    })
  )

  const hook = (h: Hook.EffectHook<unknown>, triggers: HookTriggers.HookTriggers, name: string, priority = lastPriority) =>
    UseHook(h, { triggers, priority, name })

  return UseAll(
    hook(start, HookTriggers.beforeExecution, "store:checkpoint_start"),
    ...(journaling
      ? [
        hook(replayInference, HookTriggers.beforeInference, "store:replay_inference"),
        hook(journalInference, HookTriggers.afterInference, "store:journal_inference"),
        hook(replayTool, HookTriggers.beforeToolUse, "store:replay_tool"),
        hook(journalTool, HookTriggers.afterToolUse, "store:journal_tool"),
      ]
      : []),
    hook(Hook.effect((ctx) => checkpoint(ctx)), HookTriggers.afterStep, "store:checkpoint_step"),
    hook(Hook.effect(finish), HookTriggers.of("AfterExecution"), "store:checkpoint_end"),
    UseLoader(load, settle),
  )
}
