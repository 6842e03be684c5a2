// The app user's identity in the header: the display name every write
// records (with the actor UUID), editable in place. Stored by the server in
// the app's own configuration directory, never in a workspace.
import { useState, type FormEvent } from 'react';
import { DISPLAY_NAME_MAX_CHARS, displayNameRefusal } from '../../core/contract/actor';
import { ErrorBox } from './error-box';
import { useAction } from '../hooks';
import { useStudio } from '../store';

const PROBLEM = { empty: 'A name is needed.', too_long: `At most ${DISPLAY_NAME_MAX_CHARS} characters.`, control_character: 'No control characters.' } as const;

/** "You: Ada · Change" in the header; a small form to rename. */
export function Identity() {
  const actors = useStudio((s) => s.actors);
  const renameSelf = useStudio((s) => s.renameSelf);
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState('');
  const refusal = displayNameRefusal(name);
  const action = useAction(async () => {
    await renameSelf(name);
    setEditing(false);
  });
  if (actors === null) return null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (refusal === null) void action.run();
  };
  if (!editing) {
    return (
      <p className="muted identity" data-testid="identity">
        You: <strong data-testid="identity-name" title={actors.self.actor_uuid}>{actors.self.display_name}</strong>{' '}
        <button type="button" className="link small" onClick={() => { setName(actors.self.display_name); setEditing(true); }} data-testid="identity-edit">Change name</button>
      </p>
    );
  }
  return (
    <form className="identity row-form" onSubmit={submit} aria-label="Your name">
      <label htmlFor="identity-name">Your name (recorded with every change you make)</label>
      <input id="identity-name" value={name} onChange={(e) => setName(e.target.value)} autoComplete="name" aria-invalid={refusal !== null} aria-describedby="identity-help" data-testid="identity-input" />
      <span id="identity-help" className={refusal === null ? 'muted small' : 'field-error'}>
        {refusal === null ? `Actor id ${actors.self.actor_uuid} stays the same.` : PROBLEM[refusal]}
      </span>
      <button type="submit" className="primary" disabled={refusal !== null || action.busy} data-testid="identity-save">Save</button>
      <button type="button" onClick={() => setEditing(false)}>Cancel</button>
      {action.error !== null && <ErrorBox error={action.error} testId="identity-error" />}
    </form>
  );
}
