// A server that starts and never answers the MCP handshake: it writes its pid to the file
// named by its first argument (so a test knows it runs) and waits forever.
import { writeFileSync } from "node:fs"

writeFileSync(process.argv[2], String(process.pid))
process.stdin.resume()
setInterval(() => {}, 1 << 30)
