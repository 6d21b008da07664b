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
  const entries = new Map<string, DumpIdEntry>();
  const byUuid = new Map<string, Fields>();
  for (const item of items) byUuid.set(item.uuid, item as Fields);

  /** Records an id; a later sighting fills in or updates its label, status and duration. */
  const note = (kind: DumpIdKind, id: string | undefined, more: Partial<DumpIdEntry> = {}) => {
    if (id === undefined) return;
    if (kind === 'agent' && id === options.subjectAgentId) return;
    const key = `${kind}\u0000${id}`;
    const entry = entries.get(key) ?? { kind, id };
    if (more.label !== undefined) entry.label ??= more.label;
    if (more.status !== undefined) entry.status = more.status;
    if (more.duration_ms !== undefined) entry.duration_ms = more.duration_ms;
    entries.set(key, entry);
  };

  for (const item of items) {
    const f = item as Fields;
    const type = item.type;
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
      tool(item, f, byUuid, note);
    }
  }
  for (const entry of entries.values()) {
    if (entry.kind === 'agent' && entry.label === undefined) {
      const label = options.agentLabels?.get(entry.id);
      if (label !== undefined) entry.label = label;
    }
  }
  return [...entries.values()];
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
