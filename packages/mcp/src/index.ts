/**
 * @hookline/mcp: tools from Model Context Protocol servers as hookline tools.
 *
 * @since 0.1.0
 */
import * as McpServer_ from "./McpServer.js"
export { McpServer_ as McpServer }
export type McpServer = McpServer_.McpServer
import * as McpConnection_ from "./McpConnection.js"
export { McpConnection_ as McpConnection }
export type McpConnection = McpConnection_.McpConnection
import * as McpTool_ from "./McpTool.js"
export { McpTool_ as McpTool }
import * as McpPool_ from "./McpPool.js"
export { McpPool_ as McpPool }
export type McpPool = McpPool_.McpPool
export { McpConnectionFailed, McpServerExited } from "./McpError.js"
export { type McpCapability, type Options as UseMcpOptions, UseMcp } from "./UseMcp.js"
