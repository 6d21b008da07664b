// The dump builder: pick a preset and item types, a time range or a subagent, watch the counts follow
// each choice, write the dump, then copy or download it as JSON or Markdown. Types are shown in words
// with their selector beside them, tools counted in calls, and the selection line names only what this
// session holds.
import type { DumpIdEntry, DumpPreset, OpArgs, SessionDumpWriteResult } from '@cairn/protocol';
// The selection rules are the transcript library's own, so the counts shown are the counts written.
import { DEFAULT_SELECTION, type Selection, selection } from '@cairn/transcript/items';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { useChanges, useServices } from '../context.js';
import { formatBytes, formatCount, formatDateTime, formatDuration } from '../format.js';
import { authorizedDownload, authorizedFetch } from '../rpc.js';
import { ALL_TYPES } from '../session/feed.js';
import { numbersParts, type SessionNumbers } from '../session/numbers.js';
import { subagentsOf } from '../sessions/subagents.js';
import { typeLabel } from '../sessions/type-labels.js';
import { MAIN_LANE, type Timeline } from '../timeline/model.js';

interface Base {
  readonly entries: Record<string, number>;
  /** Calls among the entries, by type (a call and its result are two items). */
  readonly calls: Record<string, number>;
  readonly total: number;
  readonly ids: readonly DumpIdEntry[];
}

type Written =
  | { state: 'writing' }
  | { state: 'error'; message: string }
  | { state: 'done'; result: SessionDumpWriteResult };

/** `datetime-local` value ↔ milliseconds. */
const toMs = (local: string): number | undefined => {
  if (local === '') return undefined;
  const ms = new Date(local).getTime();
  return Number.isFinite(ms) ? ms : undefined;
};
const toLocal = (ms: number): string => {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
};

/** The session's span: its head's first and last times, or else (a head not read yet) those of the
 * items held, when they are all of the session's. */
function sessionSpan(
  startedAt: number | undefined,
  lastAt: number | undefined,
  items: readonly { at: number }[],
): { from: number; to: number } | undefined {
  const from = startedAt ?? items[0]?.at;
  const to = lastAt ?? items[items.length - 1]?.at;
  return from === undefined || to === undefined ? undefined : { from, to: Math.max(from, to) };
}

const familyOf = (type: string): string => {
  if (type.startsWith('system:attachment:')) return 'system:attachment';
  return type.split(':', 1)[0] ?? type;
};

const FAMILY_ORDER = ['message', 'thinking', 'tool', 'hook', 'notice', 'system', 'system:attachment'];

const FAMILY_LABEL: Record<string, string> = {
  message: 'Messages',
  thinking: 'Thinking',
  tool: 'Tools',
  hook: 'Hooks',
  notice: 'Notices',
  system: 'System',
  'system:attachment': 'Attachments',
};

export function DumpView({
  agent,
  sid,
  timeline,
  numbers,
}: {
  agent: string;
  sid: string;
  timeline: Timeline;
  /** The session's counts over all its lanes, as the toolbar and the Summary tab show them. */
  numbers?: SessionNumbers | undefined;
}) {
  const { conn, directory } = useServices();
  useChanges(directory);
  useChanges(timeline);
  const [presets, setPresets] = useState<readonly DumpPreset[]>([]);
  const [preset, setPreset] = useState('');
  const [overrides, setOverrides] = useState<ReadonlyMap<string, boolean>>(new Map());
  const [subject, setSubject] = useState('');
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const [base, setBase] = useState<Base | undefined>(undefined);
  const [agents, setAgents] = useState<readonly DumpIdEntry[]>([]);
  const [error, setError] = useState<string | undefined>(undefined);
  const [written, setWritten] = useState<Written | undefined>(undefined);

  useEffect(() => {
    void conn.request('dump_presets_read', {}).then((reply) => {
      if (reply.ok) setPresets(reply.value.presets);
      else setError(reply.error.message);
    });
  }, []);

  // The counts of every type in the chosen range and subject; the selection is applied here.
  const range = useMemo(() => ({ since_at: toMs(since), until_at: toMs(until) }), [since, until]);
  useEffect(() => {
    let current = true;
    const t = setTimeout(async () => {
      const args: Record<string, unknown> = { sid, agent, types: ALL_TYPES, limit: 1, with_ids: true };
      if (subject) args.agent_id = subject;
      if (range.since_at !== undefined) args.since_at = range.since_at;
      if (range.until_at !== undefined) args.until_at = range.until_at;
      const reply = await conn.request('transcript_items_read', args as OpArgs<'transcript_items_read'>);
      if (!current) return;
      if (!reply.ok) {
        setError(reply.error.message);
        return;
      }
      setError(undefined);
      const ids = reply.value.ids ?? [];
      setBase({
        entries: reply.value.entries,
        calls: reply.value.calls ?? {},
        total: reply.value.total,
        ids,
      });
      if (!subject && range.since_at === undefined && range.until_at === undefined) {
        setAgents(ids.filter((e) => e.kind === 'agent'));
      }
    }, 200);
    return () => {
      current = false;
      clearTimeout(t);
    };
  }, [subject, range]);

  // The items the timeline holds name the subagents spawned among them; the ids ledger names them all.
  const items = timeline.items(MAIN_LANE);
  const head = directory.get(agent, sid);
  const subagents = useMemo(() => subagentsOf(head, items, agents), [head, items.length, agents]);
  // The session's whole span, offered as a range: from the session's head, since a long session's
  // timeline holds only a window of its items.
  const span = sessionSpan(head?.started_at, head?.last_activity_at, timeline.windowed ? [] : items);

  const lookup = useMemo(() => new Map(presets.map((p) => [p.name, p])), [presets]);
  const ask = useMemo(() => {
    const types = [...overrides].map(([type, on]) => (on ? type : `-${type}`));
    // Without a preset the checkboxes start from the default selection, so it is spelled out.
    return preset ? { preset, types } : { types: [...DEFAULT_SELECTION, ...types] };
  }, [preset, overrides]);
  const sel = useMemo(() => {
    const s = selection(ask, lookup);
    return s.ok ? s.value : undefined;
  }, [ask, lookup]);

  const types = useMemo(() => Object.keys(base?.entries ?? {}).sort(), [base]);
  const families = useMemo(() => {
    const byFamily = new Map<string, string[]>();
    for (const t of types) {
      const f = familyOf(t);
      byFamily.set(f, [...(byFamily.get(f) ?? []), t]);
    }
    // Within a family, in the order of the words shown.
    for (const list of byFamily.values()) list.sort((a, b) => typeLabel(a).localeCompare(typeLabel(b)));
    const rank = (f: string) => {
      const i = FAMILY_ORDER.indexOf(f);
      return i === -1 ? FAMILY_ORDER.length : i;
    };
    return [...byFamily.entries()].sort((a, b) => rank(a[0]) - rank(b[0]) || a[0].localeCompare(b[0]));
  }, [types]);
  const kept = (t: string) => sel?.keeps(t) ?? false;
  const keptTotal = types.reduce((n, t) => n + (kept(t) ? (base?.entries[t] ?? 0) : 0), 0);

  const toggle = (list: readonly string[], on: boolean) => {
    const next = new Map(overrides);
    for (const t of list) next.set(t, on);
    setOverrides(next);
  };

  const write = async () => {
    setWritten({ state: 'writing' });
    const args: Record<string, unknown> = { sid, agent, ...ask };
    if (subject) args.agent_id = subject;
    if (range.since_at !== undefined) args.since_at = range.since_at;
    if (range.until_at !== undefined) args.until_at = range.until_at;
    const reply = await conn.request('session_dump_write', args as OpArgs<'session_dump_write'>);
    setWritten(
      reply.ok ? { state: 'done', result: reply.value } : { state: 'error', message: reply.error.message },
    );
  };

  return (
    <div class="dump-view pad">
      {error && <p class="error">{error}</p>}
      {numbersParts(numbers).length > 0 && (
        <p class="muted small session-numbers">{numbersParts(numbers).join(' · ')}</p>
      )}
      <div class="dump-grid">
        <form
          class="dump-form"
          onSubmit={(e) => {
            e.preventDefault();
            void write();
          }}
        >
          <fieldset>
            <legend>What to dump</legend>
            <label>
              Subject{' '}
              <select value={subject} onChange={(e) => setSubject(e.currentTarget.value)} name="subject">
                <option value="">the whole session</option>
                {subagents.map((a) => (
                  <option key={a.id} value={a.id}>
                    subagent {a.id}
                    {a.label ? ` — ${a.label}` : ''}
                  </option>
                ))}
              </select>
            </label>
            <div class="range">
              <label>
                From{' '}
                <input
                  type="datetime-local"
                  name="since"
                  value={since}
                  onInput={(e) => setSince(e.currentTarget.value)}
                />
              </label>
              <label>
                to{' '}
                <input
                  type="datetime-local"
                  name="until"
                  value={until}
                  onInput={(e) => setUntil(e.currentTarget.value)}
                />
              </label>
              {span && (
                <button
                  type="button"
                  class="link small"
                  onClick={() => {
                    setSince(toLocal(span.from));
                    setUntil(toLocal(span.to + 60_000));
                  }}
                >
                  whole session ({formatDateTime(span.from)} – {formatDateTime(span.to)})
                </button>
              )}
              {(since || until) && (
                <button
                  type="button"
                  class="link small"
                  onClick={() => {
                    setSince('');
                    setUntil('');
                  }}
                >
                  clear range
                </button>
              )}
            </div>
          </fieldset>
          <fieldset class="presets">
            <legend>Preset</legend>
            <label class="check">
              <input
                type="radio"
                name="preset"
                value=""
                checked={preset === ''}
                onChange={() => setPreset('')}
              />{' '}
              none (everything but attachments)
            </label>
            {presets.map((p) => (
              <label class="check" key={p.name} title={p.opts.types.join(' ')}>
                <input
                  type="radio"
                  name="preset"
                  value={p.name}
                  checked={preset === p.name}
                  onChange={() => setPreset(p.name)}
                />{' '}
                <strong>{p.name}</strong> <span class="muted small">{p.description}</span>
              </label>
            ))}
          </fieldset>
          <fieldset class="types">
            <legend>
              Item types{' '}
              <span class="muted small">
                ({base ? `${formatCount(base.total)} items in range` : 'counting…'})
              </span>
            </legend>
            {families.map(([family, list]) => {
              const on = list.filter(kept).length;
              return (
                <div class="family" key={family}>
                  <label class="check family-head">
                    <input
                      type="checkbox"
                      checked={on === list.length}
                      indeterminate={on > 0 && on < list.length}
                      onChange={(e) => toggle(list, e.currentTarget.checked)}
                    />{' '}
                    {FAMILY_LABEL[family] ?? family}
                  </label>
                  <ul>
                    {list.map((t) => (
                      <li key={t}>
                        <label class={`check ${kept(t) ? '' : 'off'}`}>
                          <input
                            type="checkbox"
                            data-type={t}
                            checked={kept(t)}
                            onChange={(e) => toggle([t], e.currentTarget.checked)}
                          />{' '}
                          <span class="type-label">
                            {typeLabel(t)} <code>{t}</code>
                          </span>{' '}
                          <TypeCount type={t} base={base} />
                        </label>
                      </li>
                    ))}
                  </ul>
                </div>
              );
            })}
          </fieldset>
          <p class="muted small selection-line">
            {sel ? selectionText(sel, types) : 'the selection names an unknown preset'}
          </p>
          <div class="dump-actions">
            <p class="selected" data-count={keptTotal}>
              <strong>{formatCount(keptTotal)}</strong> items selected
            </p>
            <button type="submit" class="primary" disabled={!sel || written?.state === 'writing'}>
              {written?.state === 'writing' ? 'Writing…' : 'Write dump'}
            </button>
          </div>
        </form>
        <div class="dump-result" aria-live="polite">
          {written?.state === 'error' && <p class="error">Could not write the dump: {written.message}</p>}
          {written?.state === 'done' && <DumpResult result={written.result} />}
          {!written && (
            <p class="muted">
              The dump is written as a file on this machine; you can then copy it or download it.
            </p>
          )}
        </div>
      </div>
    </div>
  );
}

/**
 * The selection as applied, without the tools of other agents a preset names (the `file` preset lists
 * every agent's file tools side by side): only selectors that reach a type this session holds, and
 * the families and wildcards.
 */
function selectionText(sel: Selection, present: readonly string[]): string {
  const reaches = (selector: string) => {
    const name = selector.startsWith('-') ? selector.slice(1) : selector;
    if (!name.startsWith('tool:')) return true;
    return present.some((t) => t === name || t.startsWith(`${name}:`));
  };
  const shown = sel.elements.filter(reaches);
  const left = sel.elements.length - shown.length;
  return `selection: ${shown.join(' ')}${left > 0 ? ` (and ${left} tool${left === 1 ? '' : 's'} no item here uses)` : ''}`;
}

/** How many items of a type the range holds; for a tool, its calls, with the items (calls and
 * results) in the title. `data-items` keeps the item count the selection adds up. */
function TypeCount({ type, base }: { type: string; base: Base | undefined }) {
  const items = base?.entries[type] ?? 0;
  const calls = base?.calls[type];
  if (type.startsWith('tool:') && calls !== undefined) {
    return (
      <span class="count" data-items={items} title={`${formatCount(items)} items: calls and their results`}>
        {formatCount(calls)} call{calls === 1 ? '' : 's'}
      </span>
    );
  }
  return (
    <span class="count" data-items={items}>
      {formatCount(items)}
    </span>
  );
}

const dumpName = (path: string): string => path.split(/[\\/]/).pop() ?? path;

function DumpResult({ result }: { result: SessionDumpWriteResult }) {
  const name = dumpName(result.path);
  const url = (format: 'json' | 'md', download: boolean) =>
    `dumps/${encodeURIComponent(name)}?format=${format}${download ? '&download=1' : ''}`;
  const [copied, setCopied] = useState<string | undefined>(undefined);
  const copy = async (format: 'json' | 'md') => {
    try {
      const res = await authorizedFetch(url(format, false));
      if (!res.ok) throw new Error(`the server answered ${res.status}`);
      await copyText(await res.text());
      setCopied(format === 'json' ? 'JSON copied' : 'Markdown copied');
    } catch (e) {
      setCopied(`could not copy: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  // The link alone would reach the server without the token, so the file is fetched with it.
  const download = (format: 'json' | 'md', file: string) => (e: Event) => {
    e.preventDefault();
    authorizedDownload(url(format, true), file).catch((cause: unknown) =>
      setCopied(`could not download: ${cause instanceof Error ? cause.message : String(cause)}`),
    );
  };
  const total = Object.values(result.entries).reduce((a, b) => a + b, 0);
  return (
    <div class="written" data-dump={name}>
      <h2>Dump written</h2>
      <p>
        <code class="path">{result.path}</code>
      </p>
      <p class="muted small">
        {formatCount(total)} items · {formatBytes(result.bytes)}
      </p>
      <div class="dump-buttons">
        <button type="button" onClick={() => void copy('json')}>
          Copy JSON
        </button>
        <button type="button" onClick={() => void copy('md')}>
          Copy Markdown
        </button>
        <a class="button" href={url('json', true)} download={name} onClick={download('json', name)}>
          Download JSON
        </a>
        <a
          class="button"
          href={url('md', true)}
          download={name.replace(/\.json$/, '.md')}
          onClick={download('md', name.replace(/\.json$/, '.md'))}
        >
          Download Markdown
        </a>
        {copied && <span class="muted small">{copied}</span>}
      </div>
      <table class="entries">
        <thead>
          <tr>
            <th>type</th>
            <th>items</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(result.entries)
            .sort((a, b) => b[1] - a[1])
            .map(([type, n]) => (
              <tr key={type}>
                <td>
                  <span class="type-label">
                    {typeLabel(type)} <code>{type}</code>
                  </span>
                </td>
                <td>{formatCount(n)}</td>
              </tr>
            ))}
        </tbody>
      </table>
      {result.ids.length > 0 && (
        <>
          <h3>Ids in the dump</h3>
          <table class="entries">
            <tbody>
              {result.ids.slice(0, 200).map((e) => (
                <tr key={`${e.kind}:${e.id}`}>
                  <td>{e.kind}</td>
                  <td>
                    <code>{e.id}</code>
                  </td>
                  <td>{e.label ?? ''}</td>
                  <td>
                    {e.status ?? ''}
                    {e.duration_ms !== undefined ? ` · ${formatDuration(e.duration_ms)}` : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </div>
  );
}

async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement('textarea');
  area.value = text;
  document.body.append(area);
  area.select();
  document.execCommand('copy');
  area.remove();
}
