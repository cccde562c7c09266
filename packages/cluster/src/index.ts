/**
 * @hookline/cluster: agent runs spread over many processes and machines, on
 * effect/cluster (sharded entities, persisted messages and shard locks in PostgreSQL),
 * surviving a runner killed mid-run.
 *
 * @since 0.1.0
 */
import * as Cancellation_ from "./Cancellation.js"
export { Cancellation_ as Cancellation }
import * as ClusterAgent_ from "./ClusterAgent.js"
export { ClusterAgent_ as ClusterAgent }
export { HooklineRun } from "./HooklineRun.js"
import * as Protocol_ from "./Protocol.js"
export { Protocol_ as Protocol }
import * as RunEvent_ from "./RunEvent.js"
export { RunEvent_ as RunEvent }
import * as RunEntity_ from "./RunEntity.js"
export { RunEntity_ as RunEntity }
import * as Client_ from "./Client.js"
export { Client_ as Client }
import * as Runner_ from "./Runner.js"
export { Runner_ as Runner }
import * as Settings_ from "./Settings.js"
export { Settings_ as Settings }
