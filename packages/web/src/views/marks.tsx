// The person's own marks: a star on a session or on one timeline row, tags on a session, and the
// sessions a search names by tag. Tags are drawn as text with invisible characters shown as code
// points, as every transcript text is.
import type { SessionMarks } from '@cairn/protocol';
import { useState } from 'preact/hooks';
import { useChanges, useServices } from '../context.js';
import { shownText } from '../display.js';
import { formatRoute, parseRoute, sessionHref } from '../route.js';
import { marksOf, taggedBy } from '../sessions/marks.js';
import type { ItemRow } from '../timeline/model.js';

function useMarks() {
  const { conn } = useServices();
  const marks = marksOf(conn);
  useChanges(marks);
  return marks;
}

/** ☆ / ★ for one session. */
export function SessionStar({ agent, sid }: { agent: string; sid: string }) {
  const marks = useMarks();
  const starred = marks.of(agent, sid)?.starred === true;
  return (
    <button
      type="button"
      class={`star session-star ${starred ? 'on' : ''}`}
      aria-pressed={starred}
      aria-label={starred ? 'unstar this session' : 'star this session'}
      title={starred ? 'unstar this session' : 'star this session'}
      onClick={(e) => {
        e.preventDefault();
        void marks.write(agent, sid, { starred: !starred });
      }}
    >
      {starred ? '★' : '☆'}
    </button>
  );
}

/** A session's tags as chips that filter the list, each removable, and a box to add one. */
export function SessionTags({ agent, sid }: { agent: string; sid: string }) {
  const marks = useMarks();
  const [adding, setAdding] = useState(false);
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<string | undefined>();
  const tags = marks.of(agent, sid)?.tags ?? [];
  const save = async (next: string[]) => {
    const refused = await marks.write(agent, sid, { tags: next });
    setError(refused);
    return refused === undefined;
  };
  return (
    <span class="session-tags">
      {tags.map((t) => (
        <span key={t} class="tag-chip" data-tag={t}>
          <a
            href={formatRoute({ view: 'sessions', query: '', tools: false, tag: t })}
            title={`sessions tagged ${shownText(t)}`}
          >
            #{shownText(t)}
          </a>
          <button
            type="button"
            class="tag-remove"
            aria-label={`remove tag ${shownText(t)}`}
            onClick={() => void save(tags.filter((x) => x !== t))}
          >
            ×
          </button>
        </span>
      ))}
      {adding ? (
        <form
          class="tag-form"
          onSubmit={async (e) => {
            e.preventDefault();
            const tag = draft.trim();
            if (tag === '' || (await save([...tags, tag]))) {
              setDraft('');
              setAdding(false);
            }
          }}
        >
          <input
            type="text"
            name="tag"
            class="tag-input"
            aria-label="new tag"
            maxLength={64}
            value={draft}
            // biome-ignore lint/a11y/noAutofocus: the box opens because the person asked to type a tag
            autoFocus
            onInput={(e) => setDraft(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') setAdding(false);
            }}
          />
          <button type="submit" class="small">
            add
          </button>
        </form>
      ) : (
        <button type="button" class="link small add-tag" onClick={() => setAdding(true)}>
          + tag
        </button>
      )}
      {error && (
        <span class="err-text small" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}

/** Links to the rows starred in a session. */
export function StarredItems({ agent, sid }: { agent: string; sid: string }) {
  const marks = useMarks();
  const items = marks.of(agent, sid)?.items ?? [];
  if (items.length === 0) return null;
  return (
    <details class="starred-items">
      <summary title="rows starred in this session">
        ★ {items.length} row{items.length === 1 ? '' : 's'}
      </summary>
      <ol>
        {items.map((i, n) => (
          <li key={n}>
            <a
              href={sessionHref(agent, sid, 'timeline', {
                uuid: i.item_uuid,
                ...(i.item_type ? { type: i.item_type } : {}),
                ...(i.agent_id ? { lane: i.agent_id } : {}),
                ...(i.nth ? { nth: i.nth } : {}),
              })}
            >
              {i.item_type ?? 'item'}
              {i.agent_id ? ` · subagent ${i.agent_id}` : ''}
            </a>
          </li>
        ))}
      </ol>
    </details>
  );
}

/** ☆ / ★ for one timeline row, pointed at as its permalink points at it. */
export function ItemStar({
  agent,
  sid,
  row,
  href,
}: {
  agent: string;
  sid: string;
  row: ItemRow;
  href: string;
}) {
  const marks = useMarks();
  const route = parseRoute(href);
  const ref = route.view === 'session' ? route.item : undefined;
  const item = {
    item_uuid: ref?.uuid ?? row.item.uuid,
    item_type: ref?.type ?? row.item.type,
    ...(ref?.lane ? { agent_id: ref.lane } : {}),
    ...(ref?.nth ? { nth: ref.nth } : {}),
  };
  const starred = marks.isItemStarred(agent, sid, item);
  return (
    <button
      type="button"
      class={`star item-star ${starred ? 'on' : ''}`}
      aria-pressed={starred}
      aria-label={starred ? 'unstar this row' : 'star this row'}
      title={starred ? 'unstar this row' : 'star this row'}
      onClick={() =>
        void marks.write(agent, sid, starred ? { unstar_items: [item] } : { star_items: [item] })
      }
    >
      {starred ? '★' : '☆'}
    </button>
  );
}

/** Above a search's full-text hits: the sessions whose tags the query names. */
export function TaggedSessions({ query, keep }: { query: string; keep: (m: SessionMarks) => boolean }) {
  const marks = useMarks();
  const { directory } = useServices();
  const found = taggedBy(marks.all(), query).filter(keep);
  if (found.length === 0) return null;
  return (
    <section class="tagged-sessions" aria-label="Sessions tagged">
      <h2 class="small muted">
        {found.length} session{found.length === 1 ? '' : 's'} tagged “{shownText(query)}”
      </h2>
      <ul>
        {found.map((m) => {
          const head = directory.get(m.agent, m.sid);
          const title = shownText(head?.title ?? head?.first_prompt ?? m.sid);
          return (
            <li key={`${m.agent}/${m.sid}`} class="tagged-session" data-sid={m.sid}>
              <a href={sessionHref(m.agent, m.sid)}>
                {title.length > 200 ? `${title.slice(0, 199)}…` : title}
              </a>{' '}
              <span class={`agent-badge agent-${m.agent}`}>{m.agent}</span>{' '}
              {m.tags.map((t) => (
                <span key={t} class="tag-chip">
                  #{shownText(t)}
                </span>
              ))}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
