/**
 * What an attempt may send now, as a table without a database: nothing to a
 * person who may no longer see the item; without "include the question" no
 * question, and no answer links for a question (they are labelled with its
 * options), while a consent's or action's links stay.
 */
import { describe, expect, it } from 'vitest';
import type { Notice } from './channel.js';
import { noticeToSendNow } from './recheck.js';

const LINKS = [
  { label: 'Hand-written', url: 'https://clarion.example/answer#cla_one' },
  { label: 'Generated', url: 'https://clarion.example/answer#cla_two' },
];

const QUESTION: Notice = {
  deliveryId: 'd1',
  event: 'asked',
  kind: 'question',
  itemId: 'b1',
  sessionId: 's1',
  taskId: 't1',
  taskTitle: 'Task',
  question: 'Which parser?',
  url: 'https://clarion.example/sessions/s1',
  createdAt: '2026-12-01T10:00:00.000000000Z',
  expiresAt: null,
  answerLinks: LINKS,
};

const CONSENT: Notice = {
  ...QUESTION,
  kind: 'consent',
  itemId: 'r1',
  question: 'rm -rf /srv/backups',
  answerLinks: [
    { label: 'Allow once', url: 'https://clarion.example/answer#cla_three' },
    { label: 'Reject', url: 'https://clarion.example/answer#cla_four' },
  ],
};

/** `notice` with `keys` absent (not merely undefined). */
function without(notice: Notice, ...keys: (keyof Notice)[]): Notice {
  return Object.fromEntries(
    Object.entries(notice).filter(([key]) => !keys.includes(key as keyof Notice)),
  ) as unknown as Notice;
}

const ANSWERED: Notice = { ...without(QUESTION, 'answerLinks', 'expiresAt'), event: 'answered' };

const SEE_AND_INCLUDE = { visible: true, includeQuestion: true, answerLinks: true };
const SEE_ONLY = { visible: true, includeQuestion: false, answerLinks: true };
/** Everything included, but answer links turned off. */
const NO_LINKS = { visible: true, includeQuestion: true, answerLinks: false };

describe('noticeToSendNow', () => {
  it('sends a notice unchanged to a person who may see it and includes the question', () => {
    for (const notice of [QUESTION, CONSENT, ANSWERED]) {
      expect(noticeToSendNow(notice, SEE_AND_INCLUDE)).toEqual(notice);
    }
  });

  it('sends nothing to a person who may no longer see the item, whatever the setting', () => {
    for (const notice of [QUESTION, CONSENT, ANSWERED]) {
      for (const includeQuestion of [true, false]) {
        expect(
          noticeToSendNow(notice, { visible: false, includeQuestion, answerLinks: true }),
        ).toBeUndefined();
      }
    }
  });

  it('without "include the question" drops a question’s text and its answer links', () => {
    const sent = noticeToSendNow(QUESTION, SEE_ONLY);
    expect(sent).toBeDefined();
    expect(sent).not.toHaveProperty('question');
    expect(sent).not.toHaveProperty('answerLinks');
    expect(JSON.stringify(sent)).not.toContain('Which parser?');
    for (const link of LINKS) expect(JSON.stringify(sent)).not.toContain(link.label);
    expect(sent).toStrictEqual(without(QUESTION, 'question', 'answerLinks'));
  });

  it('without "include the question" drops a consent’s text but keeps its links', () => {
    const sent = noticeToSendNow(CONSENT, SEE_ONLY);
    expect(sent).not.toHaveProperty('question');
    expect(sent?.answerLinks).toEqual(CONSENT.answerLinks);
    expect(sent).toStrictEqual(without(CONSENT, 'question'));
    const action: Notice = { ...CONSENT, kind: 'action' };
    expect(noticeToSendNow(action, SEE_ONLY)?.answerLinks).toEqual(action.answerLinks);
  });

  it('lets a stored notice be sent with links only where it could carry them', () => {
    const stored = (notice: Notice): Notice => ({
      ...without(notice, 'answerLinks'),
      answerable: true,
    });
    expect(noticeToSendNow(stored(QUESTION), SEE_AND_INCLUDE)).toHaveProperty('answerable', true);
    expect(noticeToSendNow(stored(QUESTION), SEE_ONLY)).not.toHaveProperty('answerable');
    expect(noticeToSendNow(stored(CONSENT), SEE_ONLY)).toHaveProperty('answerable', true);
  });

  it('with answer links turned off sends no link, and no leave to mint one, of any kind', () => {
    for (const notice of [QUESTION, CONSENT, { ...CONSENT, kind: 'action' } satisfies Notice]) {
      const sent = noticeToSendNow(notice, NO_LINKS);
      expect(sent).toStrictEqual(without(notice, 'answerLinks'));
      const stored = noticeToSendNow(
        { ...without(notice, 'answerLinks'), answerable: true },
        NO_LINKS,
      );
      expect(stored).not.toHaveProperty('answerable');
      expect(stored).toHaveProperty('question', notice.question);
    }
  });

  it('treats an "answered" notice by the same rule', () => {
    expect(
      noticeToSendNow(ANSWERED, { visible: false, includeQuestion: true, answerLinks: true }),
    ).toBeUndefined();
    const sent = noticeToSendNow(ANSWERED, SEE_ONLY);
    expect(sent).not.toHaveProperty('question');
    expect(sent).toMatchObject({ event: 'answered', kind: 'question', itemId: 'b1' });
  });

  it('leaves the notice it was given untouched', () => {
    const copy = structuredClone(QUESTION);
    noticeToSendNow(QUESTION, SEE_ONLY);
    expect(QUESTION).toEqual(copy);
  });
});
