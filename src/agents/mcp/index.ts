/**
 * Clarion's MCP server (DESIGN §5, §6): the `/mcp` route with its tools, and
 * the stdio bridge for agents without HTTP MCP.
 */
export type { McpEndpoint, McpRouteDeps } from './route.js';
export { MCP_PATH, registerMcpRoute } from './route.js';
export type { StdioBridge, StdioBridgeOptions } from './stdio-bridge.js';
export { MCP_URL_ENV, runStdioBridge, TOKEN_ENV } from './stdio-bridge.js';
export { EXTERNAL_AGENT_PROFILE } from '../runtime.js';
export { PROGRESS_INTERVAL_MS } from './progress.js';
