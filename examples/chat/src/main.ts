// `pnpm --filter @hookline/example-chat start`: builds the page (vite build), then serves
// it and the chat API on http://127.0.0.1:5177 (PORT to change).
import { start } from "./server.js"

const server = await start(Number(process.env["PORT"] ?? 5177))
console.log(`chat: ${server.url}  (try "refund 40 on order A1", then "refund 250 on order A7")`)
