// The ids ledger: the ids the dumped items carried, gathered once, relative to the subject (a
// subagent's ledger lists the agents it started, never itself).
import type { DumpIdEntry, DumpIdKind, TranscriptItem } from '@cairn/protocol';
import type { Fields } from './fields.js';

export interface LedgerOptions {
  /** The subject's own agent id, left out of its ledger. */
  readonly subjectAgentId?: string | undefined;
  /** Names of agents known from elsewhere (a lane's title), used when no item labels them. */
  readonly agentLabels?: ReadonlyMap<string, string>;
}

// Claude Code's answer to a shell command started in the background names the task it became.
const BACKGROUND_TASK = /running in background with ID: ([A-Za-z0-9_-]+)/;
const SID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const duration = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined;

/** The ledger of the given items, in the order the ids first appeared. */
export function idsLedger(items: readonly TranscriptItem[], options: LedgerOptions = {}): DumpIdEntry[] {
  const ledger = new IdsLedger(options);
  for (const item of items) ledger.add(item);
  return ledger.entries();
}

/** Tools whose result's ledger entry is labelled from its call's fields. */
const LABELLED_BY_CALL = new Set(['Agent', 'Bash', 'Monitor', 'CronCreate']);

/**
 * The ledger gathered an item at a time, for a dump written as it is read: it keeps the entries and,
 * of the items, only the calls a later result takes its label from.
 */
export class IdsLedger {
  private readonly kept = new Map<string, DumpIdEntry>();
  /** Calls by uuid, of the tools whose results are labelled from them. */
  private readonly calls = new Map<string, Fields>();

  constructor(private readonly options: LedgerOptions = {}) {}

  /** Records an id; a later sighting fills in or updates its label, status and duration. */
  private readonly note = (kind: DumpIdKind, id: string | undefined, more: Partial<DumpIdEntry> = {}) => {
    if (id === undefined) return;
    if (kind === 'agent' && id === this.options.subjectAgentId) return;
    const key = `${kind}\u0000${id}`;
    const entry = this.kept.get(key) ?? { kind, id };
    if (more.label !== undefined) entry.label ??= more.label;
    if (more.status !== undefined) entry.status = more.status;
    if (more.duration_ms !== undefined) entry.duration_ms = more.duration_ms;
    this.kept.set(key, entry);
  };

  /** The next item of the dump, in order. */
  add(item: TranscriptItem): void {
    const f = item as Fields;
    const type = item.type;
    const note = this.note;
    if (type === 'message:sub:out') {
      note('agent', str(f.agent_id), { label: str(f.name) ?? str(f.description) ?? str(f.subagent_type) });
    } else if (type === 'message:sub:in') {
      note('agent', str(f.agent_id), { status: str(f.status), duration_ms: duration(f.duration_ms) });
    } else if (type === 'message:session:out' || type === 'message:session:in') {
      const peer = str(f.to) ?? str(f.from);
      if (peer !== undefined && SID.test(peer)) note('sid', peer);
      note('msg', str(f.msg_id));
    } else if (type === 'system:task') {
      note('task', str(f.task_id), { status: str(f.event) });
    } else if (type.startsWith('tool:')) {
      // A result reads the last item of its call's uuid before it, as a lookup over all items would.
      if (f.role !== 'result' && LABELLED_BY_CALL.has(type.slice('tool:'.length)))
        this.calls.set(item.uuid, f);
      tool(item, f, this.calls, note);
    }
  }

  /** The entries so far, agents without a label of their own named from the options. */
  entries(): DumpIdEntry[] {
    for (const entry of this.kept.values()) {
      if (entry.kind === 'agent' && entry.label === undefined) {
        const label = this.options.agentLabels?.get(entry.id);
        if (label !== undefined) entry.label = label;
      }
    }
    return [...this.kept.values()];
  }
}

function tool(
  item: TranscriptItem,
  f: Fields,
  byUuid: ReadonlyMap<string, Fields>,
  note: (kind: DumpIdKind, id: string | undefined, more?: Partial<DumpIdEntry>) => void,
): void {
  const name = item.type.slice('tool:'.length);
  if (f.role === 'use') {
    note('tool_use', str(f.tool_use_id), { label: name });
    if (name === 'TaskStop') note('task', str(f.task_id), { status: 'stopped' });
    if (name === 'SendMessage') {
      const to = str(f.to);
      if (to !== undefined && SID.test(to)) note('sid', to);
    }
    return;
  }
  const call = byUuid.get(str(f.parent_item) ?? '');
  note('tool_use', str(f.tool_use_id), { label: name });
  switch (name) {
    case 'Agent':
      note('agent', str(f.agent_id), {
        label: str(call?.name) ?? str(call?.description) ?? str(call?.subagent_type),
        status: str(f.status),
      });
      return;
    case 'Bash': {
      const task = BACKGROUND_TASK.exec(str(f.stdout) ?? '')?.[1];
      note('task', task, { label: str(call?.description) ?? str(call?.command), status: 'running' });
      return;
    }
    case 'Monitor':
      note('task', str(f.task_id), { label: str(call?.description), status: 'running' });
      return;
    case 'SendMessage':
      note('msg', str(f.msg_id));
      return;
    case 'CronCreate':
      note('cron', str(f.cron_id), { label: str(call?.cron) });
      return;
  }
}
