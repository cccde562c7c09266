/**
 * hookline streamed as users stream it: the agent of hooklineFacade.ts, each run
 * consumed with `for await (const event of agent.stream(state))` and the default
 * options (no HookExecuted events), so the table shows what streaming costs over the
 * Promise facade (issue 27: within 1.5x).
 */
import { userSystem } from "./hooklineFacade.js"

export const system = userSystem("stream")
