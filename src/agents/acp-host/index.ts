/** The ACP host: Clarion's `AgentHost` for agents that speak ACP over stdio. */
export { createAcpHost, defaultStdioBridge, type AcpHost, type AcpHostOptions } from './host.js';
export {
  cancelEveryPermission,
  type ElicitationCompleteHandler,
  type ElicitationHandler,
  type PermissionHandler,
} from './agent-requests.js';
export { AgentHostError, AgentRequestRefused, type AgentHostErrorCode } from './errors.js';
export { permissionCommand, permissionDetails, titleIsCommand } from './permission-details.js';
export { CLARION_MCP_SERVER_NAME, type StdioBridge } from './mcp-servers.js';
export {
  CANCEL,
  classifyElicitation,
  DECLINE,
  questionsReply,
  type BundleAnswer,
  type ElicitationKind,
  type FlatFormSchema,
  type QuestionField,
} from './elicitation.js';
