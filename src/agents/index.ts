/** The public surface of `src/agents/`. */
export {
  agentFailureOf,
  type AgentFailure,
  type AgentHost,
  type AgentProfile,
  type AgentRuntime,
  EXTERNAL_AGENT_PROFILE,
  type Readiness,
  type RuntimeEvent,
  type StopReason,
  stoppedToEndTurn,
} from './runtime.js';
