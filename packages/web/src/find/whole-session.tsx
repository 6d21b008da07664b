// Find in a long session the reader holds only a window of: what the find bar matches is the items
// read in, so this says so and offers the search index's answer for the whole session, each hit
// landing on its item (its page read first).
import { type OpArgs, type SessionSearchHit, snippetParts } from '@cairn/protocol';
import { useEffect, useState } from 'preact/hooks';
import { shownText } from '../display.js';
import { formatCount, formatDateTime } from '../format.js';
import type { Connection } from '../rpc.js';

/** Hits asked for at once: a list to pick from, not a page of results to read through. */
const HITS = 50;

type Answer =
  | { readonly state: 'idle' }
  | { readonly state: 'searching' }
  | {
      readonly state: 'done';
      readonly hits: readonly SessionSearchHit[];
      readonly more: boolean;
      readonly partial: boolean;
    }
  | { readonly state: 'error'; readonly message: string };

export function WholeSessionFind({
  conn,
  agent,
  sid,
  query,
  held,
  total,
  onLand,
}: {
  conn: Connection;
  agent: string;
  sid: string;
  query: string;
  /** Items read in, which the find bar searches; of `total` in the session. */
  held: number;
  total: number;
  /** Lands on a hit's item: the session's own (no lane) or a subagent's. */
  onLand(hit: SessionSearchHit): void;
}) {
  const [answer, setAnswer] = useState<Answer>({ state: 'idle' });
  // A new query makes the last answer another question's.
  useEffect(() => setAnswer({ state: 'idle' }), [query]);
  const search = async () => {
    setAnswer({ state: 'searching' });
    const args = { query, sid, agents: [agent], limit: HITS };
    const reply = await conn.request('session_search', args as OpArgs<'session_search'>);
    if (!reply.ok) {
      setAnswer({ state: 'error', message: reply.error.message });
      return;
    }
    // In the session's order, as the reader steps through it.
    const hits = [...reply.value.hits].sort((a, b) => (a.at ?? 0) - (b.at ?? 0));
    setAnswer({
      state: 'done',
      hits,
      more: reply.value.next_cursor !== undefined,
      partial: reply.value.partial,
    });
  };
  const blank = query.trim() === '';
  return (
    <section class="whole-find small" aria-label="Find in the whole session">
      <p class="muted whole-find-note">
        This session is long: find looks in the {formatCount(held)} items read in around the view, of{' '}
        {formatCount(total)}.{' '}
        <button
          type="button"
          class="link whole-find-search"
          disabled={blank || answer.state === 'searching'}
          onClick={() => void search()}
        >
          Search the whole session
        </button>
        {answer.state === 'searching' && ' · searching…'}
      </p>
      {answer.state === 'error' && <p class="whole-find-error">Could not search: {answer.message}</p>}
      {answer.state === 'done' && (
        <>
          <p class="muted" role="status">
            {answer.hits.length === 0
              ? 'No match in the whole session.'
              : `${formatCount(answer.hits.length)}${answer.more ? '+' : ''} matching items in the whole session`}
            {answer.partial ? ' (the index is still being built: some may be missing)' : ''}
          </p>
          <ol class="whole-find-hits">
            {answer.hits.map((hit) => (
              <li key={`${hit.agent_id ?? ''}|${hit.item_uuid}|${hit.target}`}>
                <button type="button" class="link whole-find-hit" onClick={() => onLand(hit)}>
                  {hit.at !== undefined && <span class="muted">{formatDateTime(hit.at)} </span>}
                  {hit.agent_id && <span class="lane-badge">subagent {hit.agent_id} </span>}
                  {snippetParts(hit.snippet).map((part, i) =>
                    part.match ? <mark key={i}>{shownText(part.text)}</mark> : shownText(part.text),
                  )}
                </button>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
