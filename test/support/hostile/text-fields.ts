/**
 * Every place a request carries text, on REST and as MCP tool arguments, for
 * the bad-text suite: how to put a string there and the issue path the
 * `invalid_text` reply must name.
 */

/** IDs a route needs in its path; bad text is refused before any of them is looked up. */
export interface TextTargets {
  workspaceId: string;
  sessionId: string;
  pendingId: string;
}

export interface RestTextField {
  /** What the case is called in a failure. */
  name: string;
  method: 'POST' | 'PUT' | 'PATCH';
  path(targets: TextTargets): string;
  body(text: string): Record<string, unknown>;
  /** The issue path in the reply's details for `text`. */
  issue(text: string): string;
}

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

export const REST_TEXT_FIELDS: readonly RestTextField[] = [
  {
    name: 'user name',
    method: 'POST',
    path: () => '/api/v1/users',
    body: (text) => ({ name: text }),
    issue: () => 'name',
  },
  {
    name: 'token name',
    method: 'POST',
    path: () => '/api/v1/tokens',
    body: (text) => ({ name: text }),
    issue: () => 'name',
  },
  {
    name: 'sign-in link user_id',
    method: 'POST',
    path: () => '/api/v1/auth/sign-in-links',
    body: (text) => ({ user_id: text }),
    issue: () => 'user_id',
  },
  {
    name: 'workspace name',
    method: 'POST',
    path: () => '/api/v1/workspaces',
    body: (text) => ({ name: text }),
    issue: () => 'name',
  },
  {
    name: 'member user_id',
    method: 'POST',
    path: (t) => `/api/v1/workspaces/${t.workspaceId}/members`,
    body: (text) => ({ user_id: text }),
    issue: () => 'user_id',
  },
  {
    name: 'task title',
    method: 'POST',
    path: () => '/api/v1/tasks',
    body: (text) => ({ title: text }),
    issue: () => 'title',
  },
  {
    name: 'task prompt',
    method: 'POST',
    path: () => '/api/v1/tasks',
    body: (text) => ({ title: 'fine', prompt: text }),
    issue: () => 'prompt',
  },
  {
    name: 'task workspace_id',
    method: 'POST',
    path: () => '/api/v1/tasks',
    body: (text) => ({ title: 'fine', workspace_id: text }),
    issue: () => 'workspace_id',
  },
  {
    name: 'task agent_profile',
    method: 'POST',
    path: () => '/api/v1/tasks',
    body: (text) => ({ title: 'fine', agent_profile: text }),
    issue: () => 'agent_profile',
  },
  {
    name: 'message text',
    method: 'POST',
    path: (t) => `/api/v1/sessions/${t.sessionId}/messages`,
    body: (text) => ({ text, admission_key: 'bad-text' }),
    issue: () => 'text',
  },
  {
    name: 'message admission_key',
    method: 'POST',
    path: (t) => `/api/v1/sessions/${t.sessionId}/messages`,
    body: (text) => ({ text: 'fine', admission_key: text }),
    issue: () => 'admission_key',
  },
  {
    name: 'queued message edit',
    method: 'PATCH',
    path: (t) => `/api/v1/sessions/${t.sessionId}/queue/${UNKNOWN}`,
    body: (text) => ({ text, base_text: 'fine' }),
    issue: () => 'text',
  },
  {
    name: 'queued message edit base_text',
    method: 'PATCH',
    path: (t) => `/api/v1/sessions/${t.sessionId}/queue/${UNKNOWN}`,
    body: (text) => ({ text: 'fine', base_text: text }),
    issue: () => 'base_text',
  },
  {
    name: 'queue order',
    method: 'PUT',
    path: (t) => `/api/v1/sessions/${t.sessionId}/queue/order`,
    body: (text) => ({ ids: [UNKNOWN, text] }),
    issue: () => 'ids.1',
  },
  {
    name: 'consent option_id',
    method: 'POST',
    path: () => `/api/v1/user-inputs/${UNKNOWN}/respond`,
    body: (text) => ({ option_id: text }),
    issue: () => 'option_id',
  },
  {
    name: 'answer custom_text',
    method: 'POST',
    path: (t) => `/api/v1/clarification/${t.pendingId}/respond`,
    body: (text) => ({
      answers: [
        { question_id: 'q1', selected_options: ['q1_opt1'] },
        { question_id: 'q2', custom_text: text },
      ],
    }),
    issue: () => 'answers.1.custom_text',
  },
  {
    name: 'answer selected option',
    method: 'POST',
    path: (t) => `/api/v1/clarification/${t.pendingId}/respond`,
    body: (text) => ({
      answers: [
        { question_id: 'q1', selected_options: [text] },
        { question_id: 'q2', custom_text: 'x' },
      ],
    }),
    issue: () => 'answers.0.selected_options.0',
  },
  {
    name: 'reject reason',
    method: 'POST',
    path: (t) => `/api/v1/clarification/${t.pendingId}/respond`,
    body: (text) => ({ rejected: true, reject_reason: text }),
    issue: () => 'reject_reason',
  },
  {
    name: 'a key',
    method: 'POST',
    path: () => '/api/v1/tasks',
    body: (text) => ({ title: 'fine', [text]: 'x' }),
    issue: (text) => text,
  },
];

export interface McpTextField {
  name: string;
  tool: string;
  /** Who calls it: the session's agent, or a person from outside. */
  as: 'agent' | 'user';
  args(text: string, targets: TextTargets): Record<string, unknown>;
  issue(text: string): string;
}

const OPTIONS = [
  { label: 'Yes', description: 'go ahead' },
  { label: 'No', description: 'stop' },
];

export const MCP_TEXT_FIELDS: readonly McpTextField[] = [
  {
    name: 'question prompt',
    tool: 'ask_user_question',
    as: 'agent',
    args: (text) => ({ questions: [{ prompt: text, options: OPTIONS }] }),
    issue: () => 'questions.0.prompt',
  },
  {
    name: 'question title',
    tool: 'ask_user_question',
    as: 'agent',
    args: (text) => ({ questions: [{ title: text, prompt: 'Go?', options: OPTIONS }] }),
    issue: () => 'questions.0.title',
  },
  {
    name: 'option label',
    tool: 'ask_user_question',
    as: 'user',
    args: (text) => ({
      questions: [{ prompt: 'Go?', options: [{ label: text, description: 'x' }, OPTIONS[1]] }],
    }),
    issue: () => 'questions.0.options.0.label',
  },
  {
    name: 'option description',
    tool: 'ask_user_question',
    as: 'agent',
    args: (text) => ({
      questions: [{ prompt: 'Go?', options: [OPTIONS[0], { label: 'No', description: text }] }],
    }),
    issue: () => 'questions.0.options.1.description',
  },
  {
    name: 'ask context',
    tool: 'ask_user_question',
    as: 'agent',
    args: (text) => ({ questions: [{ prompt: 'Go?', options: OPTIONS }], context: text }),
    issue: () => 'context',
  },
  {
    name: 'answer custom_text',
    tool: 'answer_question',
    as: 'user',
    args: (text, t) => ({
      pending_id: t.pendingId,
      answers: [
        { question_id: 'q1', selected_options: ['q1_opt1'] },
        { question_id: 'q2', custom_text: text },
      ],
    }),
    issue: () => 'answers.1.custom_text',
  },
  {
    name: 'reject reason',
    tool: 'answer_question',
    as: 'user',
    args: (text, t) => ({ pending_id: t.pendingId, rejected: true, reject_reason: text }),
    issue: () => 'reject_reason',
  },
  {
    name: 'answered pending_id',
    tool: 'answer_question',
    as: 'user',
    args: (text) => ({ pending_id: text, rejected: true }),
    issue: () => 'pending_id',
  },
  {
    name: 'awaited pending_id',
    tool: 'wait_for_answer',
    as: 'user',
    args: (text) => ({ pending_id: text, timeout_seconds: 1 }),
    issue: () => 'pending_id',
  },
  {
    name: 'listing cursor',
    tool: 'list_pending_questions',
    as: 'user',
    args: (text) => ({ cursor: text }),
    issue: () => 'cursor',
  },
  {
    name: 'action title',
    tool: 'request_user_action',
    as: 'agent',
    args: (text) => ({ title: text, instructions: 'Do it.' }),
    issue: () => 'title',
  },
  {
    name: 'action instructions',
    tool: 'request_user_action',
    as: 'agent',
    args: (text) => ({ title: 'Connect', instructions: text }),
    issue: () => 'instructions',
  },
  {
    name: 'action url',
    tool: 'request_user_action',
    as: 'agent',
    args: (text) => ({ title: 'Connect', instructions: 'Do it.', url: `https://x.test/${text}` }),
    issue: () => 'url',
  },
];
