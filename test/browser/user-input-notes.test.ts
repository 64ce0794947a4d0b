/**
 * Recovery's notes about an agent's request its server lost, in Chromium
 * against the real server: the note that a request ended unanswered and the
 * note that a decision may not have reached the agent are worded in the
 * reader's language from their metadata (the cause, `loss`), with the
 * agent's title as given; a note whose cause this build does not know shows
 * the server's own text; so is the note that a person's Stop ended one
 * unanswered. The notes are written as recovery writes them
 * (`endOrphanedUserInputs`), through the session write unit. So is the note
 * that a stop (a restart, or a replica that died) ended the agent's turn.
 */
import { describe, expect, it } from 'vitest';
import { appendMessage, currentTurn } from '../../src/store/index.js';
import {
  endedNoteText,
  unconfirmedNoteText,
  type RegistryLoss,
} from '../../src/turns/ended-user-inputs.js';
import { refusedNoteText } from '../../src/turns/refused-requests.js';
import {
  FRESH_START_METADATA,
  FRESH_START_TEXT,
  turnCancelledNote,
  turnFailureNote,
  TURN_INTERRUPTED_TEXTS,
  turnInterruptedMetadata,
  USER_INPUT_DECISION_UNCONFIRMED_TYPE,
  USER_INPUT_ENDED_TYPE,
  USER_INPUT_REFUSED_TYPE,
  type UserInputRefusedNote,
  type UserInputView,
} from '../../src/wire/index.js';
import { api, signedInPage, type CreatedTask, type World } from './support/harness.js';
import { sessionState, until, useSuite, WAIT } from './support/clarification-pages.js';

/** A task whose session is idle, and a way to add system notes to its current turn. */
async function idleSessionWithNotes(world: World, title: string) {
  const created = await api<CreatedTask>(world, 'POST', '/api/v1/tasks', {
    title,
    prompt: 'hello',
  });
  const sessionId = created.session.id;
  await until(
    () => sessionState(world, sessionId, created.task.id),
    (state) => state === 'idle',
  );
  const note = (type: string, content: string, metadata: Record<string, unknown>) =>
    world.clarion.turns.sessions.write(sessionId, async (write) => {
      const turn = await currentTurn(write.tx, sessionId);
      if (!turn) throw new Error('no turn');
      write.added(
        await appendMessage(write.tx, {
          sessionId,
          taskId: created.task.id,
          turnId: turn.id,
          authorType: 'system',
          type,
          content,
          metadata,
        }),
      );
    });
  return { sessionId, note };
}

describe('the notes of a request its server lost', () => {
  const suite = useSuite();

  it('say it in the reader’s language, or in the server’s words when the cause is unknown', async () => {
    const { world } = suite;
    const { sessionId, note } = await idleSessionWithNotes(world, 'Lost requests');
    const view = (kind: 'consent' | 'action', title: string) =>
      ({ id: `req-${title}`, kind, title }) as UserInputView;
    const named = (kind: 'consent' | 'action', title: string, loss: string) => ({
      request_id: `req-${title}`,
      kind,
      title,
      loss,
    });
    const restart: RegistryLoss = 'restart';
    await note(
      USER_INPUT_ENDED_TYPE,
      endedNoteText(view('consent', 'npm publish'), restart),
      named('consent', 'npm publish', restart),
    );
    await note(
      USER_INPUT_DECISION_UNCONFIRMED_TYPE,
      unconfirmedNoteText(view('action', 'Connect GitHub'), 'replica_gone'),
      named('action', 'Connect GitHub', 'replica_gone'),
    );
    // A cause from a newer server: its own words stand.
    await note(
      USER_INPUT_ENDED_TYPE,
      'The agent’s request "Rotate keys" ended unanswered: the moon set.',
      named('action', 'Rotate keys', 'moonset'),
    );
    // Ended by a person's Stop, whose own line says who.
    await note(
      USER_INPUT_ENDED_TYPE,
      endedNoteText(view('consent', 'rm -rf build'), 'stopped'),
      named('consent', 'rm -rf build', 'stopped'),
    );

    const read = async (locale: string) => {
      const page = await signedInPage(world, suite.browser, undefined, { locale });
      await page.goto(`${world.origin}/sessions/${sessionId}`);
      const notes = page.getByTestId('user-input-note');
      await notes.nth(3).waitFor(WAIT);
      const texts = await notes.allTextContents();
      const worded = await Promise.all(
        texts.map((_, index) => notes.nth(index).getAttribute('data-worded')),
      );
      return { page, texts, worded };
    };

    const german = await read('de-DE');
    expect(german.worded).toEqual(['translated', 'translated', 'server', 'translated']);
    expect(german.texts[0]).toContain(
      'Unbeantwortet beendet – Berechtigungsanfrage des Agenten „npm publish“: Der Server wurde neu gestartet.',
    );
    expect(german.texts[1]).toContain('Anfrage des Agenten „Connect GitHub“');
    expect(german.texts[1]).toContain('der Server, auf dem der Agent lief, wurde beendet');
    expect(german.texts[1]).toContain('vielleicht nicht erhalten');
    expect(german.texts[2]).toContain('the moon set');
    expect(german.texts[3]).toContain(
      'Berechtigungsanfrage des Agenten „rm -rf build“: Sein Zug wurde angehalten.',
    );
    await suite.shoot(german.page, 'user-input-notes-de');
    await german.page.context().close();

    const japanese = await read('ja-JP');
    expect(japanese.texts[0]).toContain(
      '許可リクエスト「npm publish」は回答されないまま終了しました',
    );
    expect(japanese.texts[1]).toContain('受け取っていない可能性があります');
    expect(japanese.texts[3]).toContain('ターンが停止されました');
    await japanese.page.context().close();

    const english = await read('en-US');
    expect(english.texts[0]).toContain(
      'The agent’s permission request “npm publish” ended unanswered: the server restarted.',
    );
    expect(english.texts[1]).toContain('the agent may not have received it');
    expect(english.texts[3]).toContain(
      'The agent’s permission request “rm -rf build” ended unanswered: its turn was stopped.',
    );
    await english.page.context().close();
  }, 120_000);

  it('say that a request over its agent’s bound was never shown, in the reader’s language', async () => {
    const { world } = suite;
    const { sessionId, note } = await idleSessionWithNotes(world, 'Refused requests');
    const refused: UserInputRefusedNote = {
      kind: 'consent',
      title: 'npm publish',
      code: 'too_many_open_requests',
      limit: 20,
    };
    // As the ACP bridge writes it (refused-requests), then one from a newer server.
    await note(USER_INPUT_REFUSED_TYPE, refusedNoteText(refused), { ...refused });
    await note(USER_INPUT_REFUSED_TYPE, 'The agent’s form "Plan" was not shown: the moon set.', {
      ...refused,
      code: 'moonset',
    });

    const read = async (locale: string) => {
      const page = await signedInPage(world, suite.browser, undefined, { locale });
      await page.goto(`${world.origin}/sessions/${sessionId}`);
      const notes = page.getByTestId('user-input-note');
      await notes.nth(1).waitFor(WAIT);
      const texts = await notes.allTextContents();
      const worded = await Promise.all(
        texts.map((_, index) => notes.nth(index).getAttribute('data-worded')),
      );
      await page.context().close();
      return { texts, worded };
    };

    const german = await read('de-DE');
    expect(german.worded).toEqual(['translated', 'server']);
    expect(german.texts[0]).toContain(
      'Nicht angezeigt – Berechtigungsanfrage des Agenten „npm publish“: Der Agent wartet bereits auf 20 offene Anfragen',
    );
    expect(german.texts[1]).toContain('the moon set');
    const english = await read('en-US');
    expect(english.texts[0]).toContain(
      'The agent’s permission request “npm publish” was not shown: the agent already waits on 20 open requests',
    );
  }, 120_000);

  it('say that a request Clarion cannot show was never shown, and why, in the reader’s language', async () => {
    const { world } = suite;
    const { sessionId, note } = await idleSessionWithNotes(world, 'Unshowable requests');
    const unshowable: UserInputRefusedNote = {
      kind: 'form',
      title: 'Deploy settings',
      code: 'unshowable',
      problems: ['properties: at most 20 fields'],
    };
    await note(USER_INPUT_REFUSED_TYPE, refusedNoteText(unshowable), { ...unshowable });

    const read = async (locale: string) => {
      const page = await signedInPage(world, suite.browser, undefined, { locale });
      await page.goto(`${world.origin}/sessions/${sessionId}`);
      const shown = page.getByTestId('user-input-note');
      await shown.first().waitFor(WAIT);
      const text = await shown.first().textContent();
      const worded = await shown.first().getAttribute('data-worded');
      await page.context().close();
      return { text, worded };
    };

    const german = await read('de-DE');
    expect(german.worded).toBe('translated');
    expect(german.text).toContain(
      'Nicht angezeigt – Formular des Agenten „Deploy settings“: Clarion kann das nicht darstellen (properties: at most 20 fields)',
    );
    const english = await read('en-US');
    expect(english.text).toContain(
      'The agent’s form “Deploy settings” was not shown: Clarion cannot show it to a person (properties: at most 20 fields)',
    );
  }, 120_000);

  it('say that a stop ended the turn in the reader’s language, or in the server’s words', async () => {
    const { world } = suite;
    const { sessionId, note } = await idleSessionWithNotes(world, 'Interrupted turn');
    const status = (content: string, metadata: Record<string, unknown>) =>
      note('status', content, metadata);
    // As the stopping server writes it (runtime-events), then one from a newer server.
    await status(TURN_INTERRUPTED_TEXTS.restart, turnInterruptedMetadata('restart'));
    // As recovery writes it when a replica takes over a dead one's sessions (interrupted-turns).
    await status(TURN_INTERRUPTED_TEXTS.replica_gone, turnInterruptedMetadata('replica_gone'));
    await status('Clarion stopped: the moon set.', {
      turn_outcome: 'interrupted',
      loss: 'moonset',
    });

    const page = await signedInPage(world, suite.browser, undefined, { locale: 'de-DE' });
    await page.goto(`${world.origin}/sessions/${sessionId}`);
    const notes = page.getByTestId('message').filter({ hasText: /Clarion/ });
    await notes.nth(2).waitFor(WAIT);
    const texts = await notes.allTextContents();
    expect(texts[0]).toContain('Clarion wurde beendet, während der Agent an diesem Zug arbeitete');
    expect(texts[0]).not.toContain(TURN_INTERRUPTED_TEXTS.restart);
    expect(texts[1]).toContain('Der Clarion-Server, auf dem der Agent lief, wurde beendet');
    expect(texts[1]).not.toContain(TURN_INTERRUPTED_TEXTS.replica_gone);
    expect(texts[2]).toContain('the moon set');
    await page.context().close();

    const japanese = await signedInPage(world, suite.browser, undefined, { locale: 'ja-JP' });
    await japanese.goto(`${world.origin}/sessions/${sessionId}`);
    const shown = japanese.getByTestId('message').filter({ hasText: /Clarion/ });
    await shown.nth(2).waitFor(WAIT);
    const worded = await shown.allTextContents();
    expect(worded[1]).toContain('エージェントを実行していた Clarion サーバーが停止した');
    await japanese.context().close();
  }, 120_000);

  it('word how a turn went in the reader’s language, and an older line as written', async () => {
    const { world } = suite;
    const { sessionId, note } = await idleSessionWithNotes(world, 'Turn lines');
    // As the server writes them (runtime-events, dispatch), then a cancel from before the name.
    for (const line of [
      { content: FRESH_START_TEXT, metadata: FRESH_START_METADATA },
      turnCancelledNote({ user_id: 'user-ada', name: 'Ada', surface: 'web' }),
      turnFailureNote('agent_error', 'agent process exited (code 3)'),
      turnFailureNote('not_taken', 'prompt timed out'),
      { content: 'Cancelled by Grace', metadata: { turn_outcome: 'cancelled' } },
    ]) {
      await note('status', line.content, line.metadata);
    }

    const page = await signedInPage(world, suite.browser, undefined, { locale: 'de-DE' });
    await page.goto(`${world.origin}/sessions/${sessionId}`);
    const rows = page.getByTestId('message').and(page.locator('.message-system'));
    await rows.nth(4).waitFor(WAIT);
    const texts = await rows.allTextContents();
    expect(texts[0]).toContain('Der Agent hat in einem neuen Gespräch neu begonnen');
    expect(texts[1]).toContain('Abgebrochen von Ada');
    expect(texts[2]).toContain(
      'Der Zug des Agenten ist fehlgeschlagen: agent process exited (code 3)',
    );
    expect(texts[3]).toContain('Der Agent hat diese Nachricht nicht angenommen: prompt timed out');
    expect(texts[4]).toContain('Cancelled by Grace');
    await page.context().close();
  }, 120_000);
});
