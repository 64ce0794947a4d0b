/** The ntfy sender against a real local receiver playing an ntfy server. */
import { afterEach, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../../test/support/receiver.js';
import type { AnswerLinkChoice, Notice } from './channel.js';
import { ntfyMessage, ntfySender, splitTopicUrl } from './ntfy.js';

const NOTICE: Notice = {
  deliveryId: 'delivery-1',
  event: 'asked',
  kind: 'consent',
  itemId: 'request-1',
  sessionId: 'session-1',
  taskId: 'task-1',
  taskTitle: 'Deploy — Bereitstellung',
  url: 'http://clarion.test/sessions/session-1',
  createdAt: '2026-12-01T10:00:00.000000000Z',
};

describe('the ntfy sender', () => {
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  it('splits a topic URL into the server root and the topic', () => {
    expect(splitTopicUrl('https://ntfy.sh/my-topic')).toEqual({
      root: 'https://ntfy.sh/',
      topic: 'my-topic',
    });
    // The query stays on the root (ntfy reads `?auth=` there); a fragment is never sent.
    expect(splitTopicUrl('http://10.0.0.2:8080/ntfy/alerts?auth=x#top')).toEqual({
      root: 'http://10.0.0.2:8080/ntfy?auth=x',
      topic: 'alerts',
    });
  });

  it('publishes title, message, click URL, tags and a bearer token as JSON', async () => {
    receiver = await startReceiver();
    const result = await ntfySender.send(
      {
        id: 'c',
        kind: 'ntfy',
        config: { url: `${receiver.url}/clarion`, access_token: 'tk_secret_0123456789' },
        reach: 'any',
      },
      NOTICE,
      AbortSignal.timeout(5_000),
    );
    expect(result).toEqual({ ok: true, status: 200 });
    const [request] = receiver.received;
    expect(request?.path).toBe('/');
    expect(request?.headers.authorization).toBe('Bearer tk_secret_0123456789');
    const body = JSON.parse(request?.body ?? '') as Record<string, unknown>;
    expect(body).toMatchObject({
      topic: 'clarion',
      title: 'Clarion: Deploy — Bereitstellung',
      message: 'An agent asks for permission',
      click: 'http://clarion.test/sessions/session-1',
      tags: ['lock'],
      actions: [{ action: 'view', label: 'Open in Clarion', url: NOTICE.url }],
    });
  });

  it('turns a consent’s answer links into action buttons (at most three)', async () => {
    receiver = await startReceiver();
    const links = ['Allow once', 'Allow always', 'Reject', 'Reject always'].map((label, i) => ({
      label,
      url: `http://clarion.test/answer#t${i}`,
    }));
    await ntfySender.send(
      { id: 'c', kind: 'ntfy', config: { url: `${receiver.url}/clarion` }, reach: 'any' },
      { ...NOTICE, answerLinks: links },
      AbortSignal.timeout(5_000),
    );
    const body = JSON.parse(receiver.received[0]?.body ?? '') as { actions: unknown[] };
    expect(receiver.received[0]?.headers.authorization).toBeUndefined();
    expect(body.actions).toEqual(
      links
        .slice(0, 3)
        .map((link) => ({ action: 'view', label: link.label, url: link.url, clear: true })),
    );
  });

  it('keeps a way to reject among a consent’s three buttons when it offers more', () => {
    // An MCP tool's consent as Gemini asks it: three ways to allow, then Reject.
    const choices = [
      { label: 'Allow', kind: 'allow_once' },
      { label: 'Always allow read_file', kind: 'allow_always' },
      { label: 'Always allow server files', kind: 'allow_always' },
      { label: 'Reject', kind: 'reject_once' },
    ] as const;
    const links: AnswerLinkChoice[] = choices.map((link, i) => ({
      ...link,
      url: `http://clarion.test/answer#t${i}`,
    }));
    const actions = ntfyMessage('clarion', { ...NOTICE, answerLinks: links }).actions;
    expect(actions.map((action) => action.url)).toEqual([
      'http://clarion.test/answer#t0',
      'http://clarion.test/answer#t1',
      'http://clarion.test/answer#t3',
    ]);
    expect(actions.map((action) => action.label)).toEqual([
      'Allow once',
      'Always allow (agent’s label: “Always allow read_file”)',
      'Reject once',
    ]);
  });

  it('labels a consent’s buttons by what each choice does, the agent’s label beside', async () => {
    receiver = await startReceiver();
    const links = [
      { label: 'Allow once', kind: 'allow_once', url: 'http://clarion.test/answer#t0' },
      // An agent names its options: this one says the opposite of what it does.
      { label: 'Reject (do not run)', kind: 'allow_always', url: 'http://clarion.test/answer#t1' },
      { label: 'Reject', kind: 'reject_once', url: 'http://clarion.test/answer#t2' },
    ] as const;
    await ntfySender.send(
      { id: 'c', kind: 'ntfy', config: { url: `${receiver.url}/clarion` }, reach: 'any' },
      { ...NOTICE, answerLinks: links },
      AbortSignal.timeout(5_000),
    );
    const body = JSON.parse(receiver.received[0]?.body ?? '') as { actions: { label: string }[] };
    expect(body.actions.map((action) => action.label)).toEqual([
      'Allow once',
      'Always allow (agent’s label: “Reject (do not run)”)',
      'Reject once',
    ]);
  });

  it('writes bidi controls in the title, the question and the buttons out as markers', async () => {
    receiver = await startReceiver();
    await ntfySender.send(
      { id: 'c', kind: 'ntfy', config: { url: `${receiver.url}/clarion` }, reach: 'any' },
      {
        ...NOTICE,
        kind: 'question',
        taskTitle: 'invoice\u202Efdp.exe',
        question: 'Pay 10\u200F.5?',
        answerLinks: [{ label: 'Yes\u2067 no', url: 'http://clarion.test/answer#t0' }],
      },
      AbortSignal.timeout(5_000),
    );
    const body = JSON.parse(receiver.received[0]?.body ?? '') as Record<string, unknown>;
    expect(body).toMatchObject({
      title: 'Clarion: invoice⟨U+202E⟩fdp.exe',
      message: 'An agent has a question: Pay 10⟨U+200F⟩.5?',
      actions: [{ label: 'Yes⟨U+2067⟩ no' }],
    });
  });

  it('reports a refusal as final, by its status alone: the body is the receiver’s, not the owner’s', async () => {
    receiver = await startReceiver(() => ({
      status: 403,
      body: 'internal-only: db_password=hunter2',
    }));
    const result = await ntfySender.send(
      { id: 'c', kind: 'ntfy', config: { url: `${receiver.url}/clarion` }, reach: 'any' },
      NOTICE,
      AbortSignal.timeout(5_000),
    );
    expect(result).toMatchObject({
      ok: false,
      status: 403,
      retryable: false,
      error: 'HTTP 403',
    });
  });
});
