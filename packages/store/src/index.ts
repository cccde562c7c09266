/**
 * @hookline/store: durable runs. A store contract, delta checkpoints, a journal of
 * tool results, and stores in memory, embedded (PGlite) and PostgreSQL.
 *
 * @since 0.1.0
 */
import * as Checkpoint_ from "./Checkpoint.js"
export { Checkpoint_ as Checkpoint }
import * as Envelope_ from "./Envelope.js"
export { Envelope_ as Envelope }
import * as MemoryStore_ from "./MemoryStore.js"
export { MemoryStore_ as MemoryStore }
import * as RunStore_ from "./RunStore.js"
export { RunStore_ as RunStore }
export type RunStore = RunStore_.RunStore
import * as StoreError_ from "./StoreError.js"
export { StoreError_ as StoreError }
export type StoreError = StoreError_.StoreError
import * as PgliteStore_ from "./PgliteStore.js"
export { PgliteStore_ as PgliteStore }
import * as PostgresStore_ from "./PostgresStore.js"
export { PostgresStore_ as PostgresStore }
import * as Checkpointing_ from "./Checkpointing.js"
export { Checkpointing_ as Checkpointing }
export { UseCheckpoints } from "./Checkpointing.js"
