import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
export declare const makeServer: () => Server
