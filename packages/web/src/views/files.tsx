// The Files changed tab: every file the session's edit calls touched, over all its lanes, each with its
// changes in order or as one combined diff, and a link from each change to its call in the timeline.
// The session's tool items are read here on their own (the timeline may hold only a window of them),
// and an edit whose before and after only the agent's record keeps is read from that record when its
// file is opened.
import type { DumpIdEntry, OpArgs } from '@cairn/protocol';
import { parseJson } from '@cairn/transcript/items';
import type { JSX } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { useChanges, useServices } from '../context.js';
import { shownItem, shownText } from '../display.js';
import { formatClock, formatCount, formatDateTime } from '../format.js';
import { languageOfPath } from '../highlight/lang.js';
import { sessionHref } from '../route.js';
import type { Connection } from '../rpc.js';
import { subagentsOf } from '../sessions/subagents.js';
import { type DiffLine, trimContext } from '../timeline/diff.js';
import {
  type ChangedFile,
  type CombinedLine,
  combinedDiff,
  type FileChange,
  fileCounts,
  filesChanged,
  linesFromInput,
} from '../timeline/files-changed.js';
import { type Item, str } from '../timeline/item.js';
import { MAIN_LANE } from '../timeline/model.js';
import { callInput } from './raw.js';
import { DiffView } from './rows.js';

type Lanes = ReadonlyMap<string, readonly Item[]>;

type State =
  | { readonly state: 'reading' }
  | { readonly state: 'error'; readonly message: string }
  | { readonly state: 'ready'; readonly lanes: Lanes };

const PAGE = 2000;

/** Every tool item of one lane, page after page, and the ids ledger's agents when asked. */
async function readToolItems(
  conn: Connection,
  agent: string,
  sid: string,
  lane: string,
): Promise<{ items: Item[]; agents: DumpIdEntry[] } | { error: string }> {
  const items: Item[] = [];
  const agents: DumpIdEntry[] = [];
  let cursor: string | undefined;
  for (;;) {
    const args: Record<string, unknown> = { sid, agent, types: ['tool'], limit: PAGE };
    if (lane !== MAIN_LANE) args.agent_id = lane;
    else args.with_ids = true;
    if (cursor !== undefined) args.cursor = cursor;
    const reply = await conn.request('transcript_items_read', args as OpArgs<'transcript_items_read'>);
    if (!reply.ok) return { error: reply.error.message };
    // Drawn as text: bidi and invisible characters as code points, as the timeline draws them.
    for (const item of reply.value.items) items.push(shownItem(item));
    for (const e of reply.value.ids ?? []) if (e.kind === 'agent') agents.push(e);
    cursor = reply.value.next_cursor;
    if (cursor === undefined) return { items, agents };
  }
}

/** The input of a call as its record holds it, for an edit whose item keeps only counts. */
async function recordedLines(
  conn: Connection,
  agent: string,
  sid: string,
  change: FileChange,
): Promise<DiffLine[] | string> {
  const source = change.call.source as { offset?: unknown; length?: unknown } | undefined;
  if (typeof source?.offset !== 'number') return 'this call does not say which record it came from';
  const args: Record<string, unknown> = {
    sid,
    agent,
    after: source.offset,
    max_bytes: Math.max(1, typeof source.length === 'number' ? source.length : 1),
  };
  if (change.lane !== MAIN_LANE) args.agent_id = change.lane;
  const reply = await conn.request('transcript_read', args as OpArgs<'transcript_read'>);
  if (!reply.ok) return reply.error.message;
  let record: unknown;
  try {
    record = parseJson(reply.value.lines[0] ?? '');
  } catch {
    return 'the record does not parse';
  }
  const lines = linesFromInput(change.tool, callInput(record, str(change.call, 'tool_use_id')));
  if (!lines) return 'the record holds no before and after for this change';
  return lines.map((l) => ({ op: l.op, text: shownText(l.text) }));
}

export function FilesView({ agent, sid }: { agent: string; sid: string }) {
  const { conn, directory } = useServices();
  useChanges(directory);
  const head = directory.get(agent, sid);
  const [state, setState] = useState<State>({ state: 'reading' });
  useEffect(() => {
    let current = true;
    void (async () => {
      const main = await readToolItems(conn, agent, sid, MAIN_LANE);
      if (!current) return;
      if ('error' in main) {
        setState({ state: 'error', message: main.error });
        return;
      }
      const lanes = new Map<string, readonly Item[]>([[MAIN_LANE, main.items]]);
      for (const sub of subagentsOf(head, [], main.agents)) {
        const read = await readToolItems(conn, agent, sid, sub.id);
        if (!current) return;
        // A subagent that cannot be read leaves the others' files standing.
        if (!('error' in read)) lanes.set(sub.id, read.items);
      }
      setState({ state: 'ready', lanes });
    })();
    return () => {
      current = false;
    };
  }, [conn, agent, sid]);

  const files = useMemo(() => (state.state === 'ready' ? filesChanged(state.lanes) : []), [state]);
  if (state.state === 'reading') return <p class="muted pad">Reading the session’s edits…</p>;
  if (state.state === 'error') return <p class="error pad">Could not read the edits: {state.message}</p>;
  if (files.length === 0)
    return <p class="muted pad files-none">No Edit, Write or patch call in this session changed a file.</p>;
  const changes = files.reduce((n, f) => n + f.changes.length, 0);
  return (
    <div class="files-view pad">
      <p class="muted small files-total">
        {formatCount(files.length)} file{files.length === 1 ? '' : 's'} changed by {formatCount(changes)} call
        {changes === 1 ? '' : 's'}, all lanes
      </p>
      <ul class="changed-files">
        {files.map((f) => (
          <li key={f.path}>
            <FileBlock file={f} agent={agent} sid={sid} />
          </li>
        ))}
      </ul>
    </div>
  );
}

const countsText = (removed: number | undefined, added: number | undefined): string =>
  `−${removed === undefined ? '?' : formatCount(removed)} +${added === undefined ? '?' : formatCount(added)}`;

const changeLabel = (change: FileChange, n: number): string =>
  `${n}. ${change.tool} (${change.kind}) at ${formatClock(change.call.at)}${change.lane === MAIN_LANE ? '' : ` in subagent ${change.lane}`}`;

function FileBlock({ file, agent, sid }: { file: ChangedFile; agent: string; sid: string }) {
  const { conn } = useServices();
  const source = useMemo<ChangeSource>(
    () => ({
      label: changeLabel,
      link: (change, label) => (
        <a
          class="change-link"
          href={sessionHref(agent, sid, 'timeline', change.ref)}
          title={`open this call in the timeline (${formatDateTime(change.call.at)})`}
        >
          {label}
        </a>
      ),
      read: (change) => recordedLines(conn, agent, sid, change),
    }),
    [conn, agent, sid],
  );
  return <ChangedFileBlock file={file} source={source} />;
}

/** Where a changed file's block gets what differs between the reader and the chat. */
export interface ChangeSource {
  /** A change's heading, numbered within its file. */
  label(change: FileChange, n: number): string;
  /** The link from a change to the call behind it. */
  link(change: FileChange, label: string): JSX.Element;
  /** The lines of a change whose item keeps only counts; without it such a change shows its counts. */
  read?(change: FileChange): Promise<DiffLine[] | string>;
}

/** One changed file, folded: its changes in order, or as one combined diff, each linked to its call. */
export function ChangedFileBlock({ file, source }: { file: ChangedFile; source: ChangeSource }) {
  const [open, setOpen] = useState(false);
  const [combined, setCombined] = useState(false);
  // What the records held, by change, for changes whose items keep only counts.
  const [read, setRead] = useState<ReadonlyMap<FileChange, DiffLine[] | string>>(new Map());
  useEffect(() => {
    if (!open || !source.read) return;
    const readOne = source.read;
    let current = true;
    void (async () => {
      for (const change of file.changes) {
        if (change.lines !== undefined || read.has(change)) continue;
        const lines = await readOne(change);
        if (!current) return;
        setRead((before) => new Map(before).set(change, lines));
      }
    })();
    return () => {
      current = false;
    };
  }, [open, file]);

  const linesOf = (change: FileChange): DiffLine[] | string | undefined =>
    (change.lines as DiffLine[] | undefined) ??
    read.get(change) ??
    (source.read ? undefined : 'only its counts are known');
  const { removed, added } = fileCounts(file);
  const language = languageOfPath(file.path);
  return (
    <details
      class="changed-file"
      data-path={file.path}
      onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}
    >
      <summary>
        <code class="file-path">{shownText(file.path)}</code>{' '}
        <span class="muted small">
          {formatCount(file.changes.length)} change{file.changes.length === 1 ? '' : 's'} ·{' '}
          {countsText(removed, added)}
        </span>
      </summary>
      {open && (
        <div class="file-changes">
          <fieldset class="diff-mode">
            <legend class="muted small">Show</legend>
            <button type="button" aria-pressed={!combined} onClick={() => setCombined(false)}>
              each change
            </button>
            <button type="button" aria-pressed={combined} onClick={() => setCombined(true)}>
              combined
            </button>
          </fieldset>
          {combined ? (
            <DiffView lines={combinedLines(file, linesOf, source.label)} language={language} />
          ) : (
            <ol class="changes">
              {file.changes.map((change, i) => {
                const lines = linesOf(change);
                return (
                  <li
                    key={`${change.lane}#${change.index}`}
                    class={`change${change.failed ? ' failed' : ''}`}
                  >
                    <div class="change-head small">
                      {source.link(change, source.label(change, i + 1))}{' '}
                      <span class="muted">{countsText(change.removed, change.added)}</span>
                      {change.failed && <span class="err-text"> · failed, not applied</span>}
                    </div>
                    {typeof lines === 'string' ? (
                      <p class="muted small">Could not read this change: {lines}</p>
                    ) : lines === undefined ? (
                      <p class="muted small">reading the change…</p>
                    ) : (
                      <DiffView lines={trimContext(lines)} language={language} />
                    )}
                  </li>
                );
              })}
            </ol>
          )}
        </div>
      )}
    </details>
  );
}

/** The combined diff's lines: each change trimmed to its context, under a heading naming it. */
function combinedLines(
  file: ChangedFile,
  linesOf: (change: FileChange) => DiffLine[] | string | undefined,
  label: (change: FileChange, n: number) => string,
): CombinedLine[] {
  return combinedDiff(
    file,
    (change) => {
      const lines = linesOf(change);
      return typeof lines === 'string' || lines === undefined ? undefined : trimContext(lines);
    },
    label,
  );
}
