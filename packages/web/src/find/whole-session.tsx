// Find in a long session the reader holds only a window of: what the find bar matches is the items
// read in, so this says so and offers the search index's answer for the whole session, each hit
// landing on its item (its page read first). The hits come in the session's order a page at a time,
// "more" adding the next, and the first page says how many there are in all.
import { type OpArgs, type SessionSearchHit, snippetParts } from '@cairn/protocol';
import { useEffect, useRef, useState } from 'preact/hooks';
import { shownText } from '../display.js';
import { formatCount, formatDateTime } from '../format.js';
import type { Connection } from '../rpc.js';

/** Hits asked for at once: a list to pick from, the next page added when asked. */
const HITS = 50;

type Answer =
  | { readonly state: 'idle' }
  | { readonly state: 'searching' }
  | {
      readonly state: 'done';
      readonly hits: readonly SessionSearchHit[];
      /** Where the next page starts; absent after the last. */
      readonly cursor: string | undefined;
      /** Every hit in the session, as the server counted them. */
      readonly total: number | undefined;
      readonly partial: boolean;
      /** The next page is being read, or could not be. */
      readonly paging: 'idle' | 'reading' | { readonly error: string };
    }
  | { readonly state: 'error'; readonly message: string };

const hitKey = (hit: SessionSearchHit): string => `${hit.agent_id ?? ''}|${hit.item_uuid}|${hit.target}`;

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
  // Counts the questions asked: a reply to one asked before the last is dropped.
  const asked = useRef(0);
  // A new query makes the last answer another question's.
  useEffect(() => {
    asked.current++;
    setAnswer({ state: 'idle' });
  }, [query]);
  // In the session's order, as the reader steps through it, so that each page follows the last.
  const ask = (cursor?: string) => {
    const args = {
      query,
      sid,
      agents: [agent],
      limit: HITS,
      order: 'time',
      ...(cursor ? { cursor } : { count: true }),
    };
    return conn.request('session_search', args as OpArgs<'session_search'>);
  };
  const search = async () => {
    const mine = ++asked.current;
    setAnswer({ state: 'searching' });
    const reply = await ask();
    if (mine !== asked.current) return;
    if (!reply.ok) {
      setAnswer({ state: 'error', message: reply.error.message });
      return;
    }
    setAnswer({
      state: 'done',
      hits: reply.value.hits,
      cursor: reply.value.next_cursor,
      total: reply.value.total,
      partial: reply.value.partial,
      paging: 'idle',
    });
  };
  const more = async () => {
    if (answer.state !== 'done' || answer.cursor === undefined) return;
    const mine = asked.current;
    const before = answer;
    setAnswer({ ...before, paging: 'reading' });
    const reply = await ask(before.cursor);
    if (mine !== asked.current) return;
    if (!reply.ok) {
      setAnswer({ ...before, paging: { error: reply.error.message } });
      return;
    }
    // The index may have grown between two pages: a hit already listed is not listed twice.
    const seen = new Set(before.hits.map(hitKey));
    setAnswer({
      ...before,
      hits: [...before.hits, ...reply.value.hits.filter((h) => !seen.has(hitKey(h)))],
      cursor: reply.value.next_cursor,
      partial: before.partial || reply.value.partial,
      paging: 'idle',
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
            {hitsText(answer.hits.length, answer.total, answer.cursor !== undefined)}
            {answer.partial ? ' (the index is still being built: some may be missing)' : ''}
          </p>
          <ol class="whole-find-hits">
            {answer.hits.map((hit) => (
              <li key={hitKey(hit)}>
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
          {answer.cursor !== undefined && (
            <p>
              <button
                type="button"
                class="link whole-find-more"
                disabled={answer.paging === 'reading'}
                onClick={() => void more()}
              >
                {answer.total !== undefined && answer.total > answer.hits.length
                  ? `Show ${formatCount(Math.min(HITS, answer.total - answer.hits.length))} more`
                  : 'Show more'}
              </button>
              {answer.paging === 'reading' && ' · reading…'}
              {typeof answer.paging === 'object' && (
                <span class="whole-find-error"> Could not read more: {answer.paging.error}</span>
              )}
            </p>
          )}
        </>
      )}
    </section>
  );
}

/** "50 of 130 matching items", or "50+" when the server did not count them. */
function hitsText(listed: number, total: number | undefined, more: boolean): string {
  if (listed === 0 && !more) return 'No match in the whole session.';
  const all = total !== undefined && total > listed ? ` of ${formatCount(total)}` : more ? '+' : '';
  return `${formatCount(listed)}${all} matching items in the whole session`;
}
