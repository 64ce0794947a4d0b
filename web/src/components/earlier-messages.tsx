/**
 * "Show earlier messages" at the top of a transcript opened at its newest
 * page (`transcript-window.ts`): loads the page before what is shown and
 * keeps the row the reader saw first where it was on the screen, so the
 * older rows appear above it instead of pushing it away. A screen reader,
 * whose focus stays put, is told in a polite live region (in the page from
 * the start, so it is heard) that rows came in above, and when the start is
 * reached.
 */
import { useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useModelState, useServices } from '../app/services.js';
import { hasEarlier, shownTranscript } from '../model/transcript-window.js';

export function EarlierMessages({
  sessionId,
  firstShownId,
}: {
  sessionId: string;
  /** The oldest row shown: it changes once earlier rows arrive. */
  firstShownId: string | undefined;
}) {
  const { t } = useTranslation();
  const { sync, model } = useServices();
  const state = useModelState();
  const [phase, setPhase] = useState<'idle' | 'loading' | 'failed'>('idle');
  const [told, setTold] = useState<'' | 'earlierLoaded' | 'earlierLoadedAll'>('');
  const boxRef = useRef<HTMLDivElement>(null);
  // The row below the button when it was pressed, and where it was on the screen.
  const anchor = useRef<{ node: Element; top: number } | undefined>(undefined);

  useLayoutEffect(() => {
    const held = anchor.current;
    if (!held) return;
    anchor.current = undefined;
    if (!held.node.isConnected) return;
    window.scrollBy(0, held.node.getBoundingClientRect().top - held.top);
  }, [firstShownId]);

  const status = (
    <p className="sr-only" role="status">
      {told === '' ? '' : t(`session.${told}`)}
    </p>
  );
  // One shape whether the button is shown or not: the live region must not be made anew.
  if (!hasEarlier(state, sessionId)) return <>{status}</>;

  const load = async () => {
    if (phase === 'loading') return;
    const node = boxRef.current?.nextElementSibling;
    anchor.current = node ? { node, top: node.getBoundingClientRect().top } : undefined;
    setPhase('loading');
    // Emptied first: the same words twice in a row are not said again.
    setTold('');
    // Taken now: once the first page is read the button is gone, and this box with it.
    const focused = document.activeElement === boxRef.current?.firstElementChild;
    const transcript = boxRef.current?.parentElement;
    const read = await sync.loadEarlier(sessionId);
    setPhase(read ? 'idle' : 'failed');
    const after = model.getState();
    if (read && shownTranscript(after, sessionId)[0]?.id !== firstShownId) {
      setTold(hasEarlier(after, sessionId) ? 'earlierLoaded' : 'earlierLoadedAll');
    }
    // Focus stays in the transcript rather than being lost to the page.
    if (focused && !hasEarlier(model.getState(), sessionId)) {
      transcript?.focus({ preventScroll: true });
    }
  };

  return (
    <>
      {status}
      <div className="transcript-earlier" ref={boxRef}>
        <button
          type="button"
          className="button"
          data-testid="transcript-earlier"
          aria-busy={phase === 'loading' ? true : undefined}
          aria-disabled={phase === 'loading' ? true : undefined}
          onClick={() => void load()}
        >
          {t(phase === 'loading' ? 'session.earlierLoading' : 'session.earlier')}
        </button>
        {phase === 'failed' ? (
          <p className="error" role="alert" data-testid="transcript-earlier-failed">
            {t('session.earlierFailed')}
          </p>
        ) : null}
      </div>
    </>
  );
}
