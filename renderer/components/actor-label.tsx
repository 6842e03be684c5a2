// Who did it: an actor's display name when the app knows it (the user, or a
// name given on the CLI), its UUID one toggle away; an actor never seen by
// name shows a short id with the full one on hover.
import { useState } from 'react';
import { actorName, shortActorId } from '../../core/contract/actor';
import { useStudio } from '../store';

/**
 * An actor UUID (or the free text a thread restore recorded) as people read it.
 * `compact` (inside grid cells, whose rows are buttons): the name, with the UUID on hover only.
 */
export function ActorLabel({ actor, testId, compact = false }: { actor: string | null; testId?: string; compact?: boolean }) {
  const book = useStudio((s) => s.actors);
  const [showId, setShowId] = useState(false);
  if (actor === null) return <span className="muted" data-testid={testId}>—</span>;
  const name = actorName(book, actor);
  if (name === null) {
    return (
      <span className="mono actor-unknown" title={actor} data-testid={testId} data-actor={actor}>
        {shortActorId(actor)}
      </span>
    );
  }
  return (
    <span className="actor" data-testid={testId} data-actor={actor}>
      <span className="actor-name" title={actor}>{name}</span>
      {book?.self.actor_uuid === actor && <span className="muted small"> (you)</span>}
      {!compact && <>{' '}<button type="button" className="link small" aria-pressed={showId} onClick={() => setShowId((v) => !v)} aria-label={showId ? `Hide the actor id of ${name}` : `Show the actor id of ${name}`}>
        id
      </button></>}
      {showId && <> <code className="actor-id">{actor}</code></>}
    </span>
  );
}
