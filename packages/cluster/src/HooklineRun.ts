/**
 * The `HooklineRun` entity: one per run id (the entity id is the run id, so a run lives
 * on one shard, whose owner runs it). Persisted `Start` and `Resume`; volatile `Status`,
 * `Result`, `Cancel` and `Events` (a run's committed events, `RunEvent`).
 *
 * @since 0.1.0
 */
import { Entity } from "effect/cluster"
import { Cancel, Result, Resume, Start, Status } from "./Protocol.js"
import { Events } from "./RunEvent.js"

/**
 * @since 0.1.0
 * @category entities
 */
export const HooklineRun = Entity.make("HooklineRun", [Start, Resume, Status, Result, Cancel, Events])
