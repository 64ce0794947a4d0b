/**
 * REST calls for starting work from the web app (issue 15): the agent
 * profiles a task may use, a new task with its first prompt, and the
 * person's "Always allow" rules. Results are typed; failures are values.
 */
import type {
  AgentProfileView,
  ConsentRuleListReply,
  CreateTaskReply,
  WorkspaceView,
} from '../../../src/wire/index.js';
import { request, type ApiFailure, type ApiResult, type FetchLike } from './api.js';
import { pageFetch } from './page-fetch.js';

export interface NewTask {
  title: string;
  agent_profile?: string;
  cwd?: string;
  prompt?: string;
  /** Where the task goes; the server picks the person's first workspace without it. */
  workspace_id?: string;
}

export function agentProfiles(
  fetchImpl: FetchLike = pageFetch,
): Promise<ApiResult<{ profiles: AgentProfileView[] }>> {
  return request(fetchImpl, '/api/v1/agent-profiles');
}

/** The workspaces the person is a member of: where a new task may go. */
export function workspaces(
  fetchImpl: FetchLike = pageFetch,
): Promise<ApiResult<{ workspaces: WorkspaceView[] }>> {
  return request(fetchImpl, '/api/v1/workspaces');
}

export function createTask(
  task: NewTask,
  fetchImpl: FetchLike = pageFetch,
): Promise<ApiResult<CreateTaskReply>> {
  return request(fetchImpl, '/api/v1/tasks', { method: 'POST', body: JSON.stringify(task) });
}

export function consentRules(
  fetchImpl: FetchLike = pageFetch,
): Promise<ApiResult<ConsentRuleListReply>> {
  return request(fetchImpl, '/api/v1/consent-rules');
}

export function revokeConsentRule(
  id: string,
  fetchImpl: FetchLike = pageFetch,
): Promise<ApiResult<null>> {
  return request(fetchImpl, `/api/v1/consent-rules/${encodeURIComponent(id)}`, {
    method: 'DELETE',
  });
}

/** One input issue as the server sent it: English `message`, and a `code` where it has one. */
export interface FieldIssue {
  message: string;
  code?: string;
}

/**
 * A 400's field problems (`details: [{path, message, code?}]`), keyed by
 * field; `word` says an issue in the page's language where it can (by its
 * code), else the server's message stands.
 */
export function fieldProblems(
  failure: ApiFailure,
  word: (issue: FieldIssue) => string = (issue) => issue.message,
): Record<string, string> {
  if (failure.kind !== 'http' || !Array.isArray(failure.details)) return {};
  const problems: Record<string, string> = {};
  for (const item of failure.details as unknown[]) {
    if (typeof item !== 'object' || item === null) continue;
    const { path, message, code } = item as { path?: unknown; message?: unknown; code?: unknown };
    if (typeof message !== 'string') continue;
    const field = typeof path === 'string' ? path : Array.isArray(path) ? path.join('.') : '';
    const said = word(typeof code === 'string' ? { message, code } : { message });
    problems[field] = problems[field] ? `${problems[field]}; ${said}` : said;
  }
  return problems;
}
