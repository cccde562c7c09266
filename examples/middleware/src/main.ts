import { clearedPlaceholder, costBudget, modelCallLimit, support } from "./tour.js"

const s = await support()
console.log(`1. support agent: ${s.status} after ${s.modelCalls} model calls`)
console.log(`   limit:tool_calls + privacy:pii_redaction, the tool results the state keeps:`)
for (const r of s.toolResults) console.log(`     ${r.length > 90 ? `${r.slice(0, 90)}…` : r}`)
console.log(`   privacy:pii_redaction (userMessages): the model read the question as ${JSON.stringify(s.questionRead)}`)
const cleared = s.lastCallToolResults.filter((r) => r === clearedPlaceholder).length
console.log(`   context:clear_tool_results: the last call read ${s.lastCallToolResults.length} tool results, ${cleared} cleared`)
console.log(`   context:summarization: ${s.summaries} summarizer call(s); summary kept: ${JSON.stringify(s.summary)}`)
console.log(`   output:structured: feedback ${JSON.stringify(s.outputFeedback)}`)
console.log(`   output:structured: decoded ${JSON.stringify(s.answer)}`)
console.log(`   guard:cost_budget: ${s.cachedInputTokens} cached input tokens; the run cost ${s.cost.toFixed(6)} USD`)

const m = await modelCallLimit()
console.log(`2. runaway model: ${m.status} after ${m.modelCalls} model calls`)
console.log(`   limit:model_calls answered: ${JSON.stringify(m.lastMessage)}`)

const c = await costBudget()
console.log(`3. expensive model: ${c.status} after ${c.modelCalls} model calls`)
console.log(`   ${c.stoppedBy}: ${c.message}`)
