// A dump, built: `session_dump_write`'s semantics over a loaded transcript, with no I/O. The whole
// subject is classified first and the range cut after, so a result inside the range still names a
// call made before it.
import type { DumpPreset, SessionDumpFile, SessionDumpWriteArgs, TranscriptItem } from '@cairn/protocol';
import type { Transcript, TranscriptEvent } from '../model.js';
import { err, ok, type Result } from '../result.js';
import { type Classification, classifyTranscript } from './classify.js';
import { idsLedger } from './ids.js';
import { presetLookup } from './presets.js';
import { type Selection, selectItems, selection } from './select.js';

export interface DumpInvalidArgs {
  readonly _tag: 'DumpInvalidArgs';
  readonly code: 'invalid_args';
  /** The argument at fault (`preset`, `types`, `since_at`, …). */
  readonly field: string;
  readonly message: string;
}

export interface DumpNotFound {
  readonly _tag: 'DumpNotFound';
  readonly code: 'not_found';
  readonly field: string;
  readonly message: string;
}

export type DumpError = DumpInvalidArgs | DumpNotFound;

export interface BuiltDump {
  readonly file: SessionDumpFile;
  /** Items written per type. */
  readonly entries: Record<string, number>;
  readonly selection: Selection;
}

export interface BuildDumpOptions {
  /** The presets requests may name; the built-ins when absent. */
  readonly presets: readonly DumpPreset[];
  /** When the dump is written, ms since the epoch. */
  readonly writtenAt: number;
}

const invalid = (field: string, message: string): DumpError => ({
  _tag: 'DumpInvalidArgs',
  code: 'invalid_args',
  field,
  message,
});
const notFound = (field: string, message: string): DumpError => ({
  _tag: 'DumpNotFound',
  code: 'not_found',
  field,
  message,
});

/** The dump file a request asks for, or why it cannot be written. */
export function buildDump(
  t: Transcript,
  args: SessionDumpWriteArgs,
  options: BuildDumpOptions,
): Result<BuiltDump, DumpError> {
  const sel = dumpSelection(args, options.presets);
  if (!sel.ok) return sel;

  const classified = classifyTranscript(t, { agentId: args.agent_id });
  if (!classified.ok) return err(notFound('agent_id', classified.error.message));
  const c = classified.value;

  const cut = cutRange(c, args);
  if (!cut.ok) return cut;
  const { items, entries } = selectItems(cut.value, sel.value);
  const kept = unlinkMissing(items);

  const agentLabels = new Map<string, string>();
  for (const lane of t.agents) if (lane.title !== undefined) agentLabels.set(lane.id, lane.title);
  const file: SessionDumpFile = {
    sid: args.sid,
    ...(c.isMain ? {} : { agent_id: c.subject.id }),
    agent: t.agent,
    written_at: options.writtenAt,
    types: [...sel.value.elements],
    ...(args.since_at === undefined ? {} : { since_at: args.since_at }),
    ...(args.until_at === undefined ? {} : { until_at: args.until_at }),
    ...(args.since_uuid === undefined ? {} : { since_uuid: args.since_uuid }),
    ...(args.until_uuid === undefined ? {} : { until_uuid: args.until_uuid }),
    items: kept,
    ids: idsLedger(kept, { subjectAgentId: c.isMain ? undefined : c.subject.id, agentLabels }),
  };
  return ok({ file, entries, selection: sel.value });
}

/** The selection a request asks for, once its bounds and selectors are known to make sense. */
export function dumpSelection(
  args: SessionDumpWriteArgs,
  presets: readonly DumpPreset[],
): Result<Selection, DumpError> {
  if (args.since_at !== undefined && args.since_uuid !== undefined)
    return err(invalid('since_uuid', 'give one lower bound: since_at or since_uuid'));
  if (args.until_at !== undefined && args.until_uuid !== undefined)
    return err(invalid('until_uuid', 'give one upper bound: until_at or until_uuid'));
  if (args.since_at !== undefined && args.until_at !== undefined && args.since_at > args.until_at)
    return err(invalid('until_at', 'until_at is before since_at'));

  // A preset the server does not have names nothing: `not_found`, like an unknown subagent or record.
  // A selector that cannot be read at all is a bad argument.
  const sel = selection(args, presetLookup(presets));
  if (!sel.ok) {
    if (sel.error._tag === 'UnknownPreset')
      return err(notFound(args.preset === sel.error.name ? 'preset' : 'types', sel.error.message));
    return err(invalid('types', sel.error.message));
  }
  return ok(sel.value);
}

/** Whether an item or event id is of the record `uuid` names: the same id, or one of its parts. */
export function isOfRecord(id: string, uuid: string): boolean {
  // An empty id names no record.
  if (uuid === '') return false;
  if (id === uuid) return true;
  return id.length > uuid.length && id.startsWith(uuid) && ':#~'.includes(id[uuid.length]!);
}

/** The classified items within the request's bounds, inclusive at both ends. */
function cutRange(c: Classification, args: SessionDumpWriteArgs): Result<TranscriptItem[], DumpError> {
  const seqOf = (i: number) => c.sources[i]!.seq;
  let from = Number.NEGATIVE_INFINITY;
  let to = Number.POSITIVE_INFINITY;
  const events = laneEvents(c);
  if (args.since_uuid !== undefined) {
    const hits = events.filter((e) => isOfRecord(e.id, args.since_uuid!));
    if (hits.length === 0)
      return err(notFound('since_uuid', `no record '${args.since_uuid}' in this transcript`));
    from = Math.min(...hits.map((e) => e.seq));
  }
  if (args.until_uuid !== undefined) {
    const hits = events.filter((e) => isOfRecord(e.id, args.until_uuid!));
    if (hits.length === 0)
      return err(notFound('until_uuid', `no record '${args.until_uuid}' in this transcript`));
    to = Math.max(...hits.map((e) => e.seq));
  }
  const out: TranscriptItem[] = [];
  c.items.forEach((item, i) => {
    if (args.since_at !== undefined && item.at < args.since_at) return;
    if (args.until_at !== undefined && item.at > args.until_at) return;
    const seq = seqOf(i);
    if (seq < from || seq > to) return;
    out.push(item);
  });
  return ok(out);
}

/** Every event of the subject's lane, whether it made an item or was bookkeeping. */
function laneEvents(c: Classification): TranscriptEvent[] {
  return [...c.sources, ...c.bookkept.map((b) => b.event)];
}

/**
 * Copies of the items in which a call whose result is not among them says so: a `use` without a
 * `result_item` is one that has not come back within what was dumped. A result keeps naming its
 * call, which may lie before the range.
 */
function unlinkMissing(items: readonly TranscriptItem[]): TranscriptItem[] {
  const present = new Set(items.map((i) => i.uuid));
  return items.map((item) => {
    const link = (item as { result_item?: string }).result_item;
    if (link === undefined || present.has(link)) return item;
    const { result_item: _gone, ...rest } = item as TranscriptItem & { result_item?: string };
    return rest as TranscriptItem;
  });
}
