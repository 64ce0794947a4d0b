/** The ACP host: Clarion's `AgentHost` for agents that speak ACP over stdio. */
export {
  cancelEveryPermission,
  createAcpHost,
  defaultStdioBridge,
  type AcpHost,
  type AcpHostOptions,
  type PermissionHandler,
} from './host.js';
export { AgentHostError, type AgentHostErrorCode } from './errors.js';
export { CLARION_MCP_SERVER_NAME, type StdioBridge } from './mcp-servers.js';
