/**
 * A workspace's Rename control on the People page, for an admin or one of
 * its owners: a button that opens a small form in place. The focus goes to
 * the name field when it opens and back to the button when it closes; a
 * refusal is tied to the field (`aria-describedby`), so a screen reader says
 * it with the field.
 */
import { useEffect, useId, useRef, useState, type SyntheticEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { WorkspaceView } from '../../../src/wire/index.js';
import { MAX_ACCOUNT_NAME_CHARS } from '../../../src/wire/limits.js';
import { isBlankText } from '../../../src/wire/text.js';
import { renameWorkspace } from '../model/people-api.js';
import { useBusyAction } from '../hooks/use-busy-action.js';
import { refusalOf, type Refusal } from '../model/people.js';
import { useRefusalText } from './refusal-note.js';

export function WorkspaceRename(props: { workspace: WorkspaceView; onRenamed: () => void }) {
  const { t } = useTranslation();
  const refusalText = useRefusalText();
  const { workspace } = props;
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState('');
  const { busy, run } = useBusyAction();
  const [refusal, setRefusal] = useState<Refusal>();
  const buttonRef = useRef<HTMLButtonElement>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  // Set on closing: the button is rendered again first, then takes the focus back.
  const [returnFocus, setReturnFocus] = useState(false);
  const errorId = useId();
  const named = { workspace: workspace.name };

  useEffect(() => {
    if (editing) inputRef.current?.focus();
  }, [editing]);
  useEffect(() => {
    if (editing || !returnFocus) return;
    setReturnFocus(false);
    buttonRef.current?.focus();
  }, [editing, returnFocus]);
  useEffect(() => {
    // The field takes the focus after a refusal: the refusal is tied to it, and said with it.
    if (editing && !busy && refusal !== undefined) inputRef.current?.focus();
  }, [editing, busy, refusal]);

  function close(): void {
    setEditing(false);
    setRefusal(undefined);
    setReturnFocus(true);
  }

  async function save(event: SyntheticEvent): Promise<void> {
    event.preventDefault();
    if (isBlankText(name)) return;
    const result = await run(() => {
      setRefusal(undefined);
      return renameWorkspace(workspace.id, name.trim());
    });
    // A press while one was in flight: that one is answered.
    if (result === undefined) return;
    if (!result.ok) {
      setRefusal(refusalOf(result));
      return;
    }
    close();
    props.onRenamed();
  }

  if (!editing) {
    return (
      <button
        type="button"
        className="button"
        data-testid="workspace-rename"
        ref={buttonRef}
        aria-label={t('people.workspaces.renameLabel', named)}
        onClick={() => {
          setName(workspace.name);
          setEditing(true);
        }}
      >
        {t('people.workspaces.rename')}
      </button>
    );
  }
  return (
    <form
      className="token-form"
      data-testid="workspace-rename-form"
      onSubmit={(event) => void save(event)}
      onKeyDown={(event) => {
        if (event.key === 'Escape') close();
      }}
    >
      <label className="token-form-label">
        <span>{t('people.workspaces.renameField', named)}</span>
        <input
          data-testid="workspace-rename-name"
          ref={inputRef}
          value={name}
          maxLength={MAX_ACCOUNT_NAME_CHARS}
          aria-invalid={refusal !== undefined}
          aria-describedby={refusal !== undefined ? errorId : undefined}
          onChange={(event) => {
            setName(event.target.value);
            setRefusal(undefined);
          }}
        />
      </label>
      <button
        type="submit"
        className="button button-primary"
        data-testid="workspace-rename-save"
        // Not `disabled` while saving: that would drop the keyboard's focus on it to the page.
        aria-disabled={busy}
        disabled={!busy && isBlankText(name)}
      >
        {t('people.workspaces.renameSave')}
      </button>
      <button
        type="button"
        className="button"
        data-testid="workspace-rename-cancel"
        onClick={close}
      >
        {t('people.workspaces.renameCancel')}
      </button>
      {refusal !== undefined ? (
        <p id={errorId} className="error" role="alert" data-testid="workspace-rename-refused">
          {refusalText(refusal)}
        </p>
      ) : null}
    </form>
  );
}
