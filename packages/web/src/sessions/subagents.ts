// The subagents a session holds, for choosing one as a dump's subject: those its main lane spawned
// (with the brief's description), the ids ledger's agents, and those whose files the session lists
// (Claude Code writes one `agent-<id>.jsonl` per subagent, the compaction summarizer's included).
import type { DumpIdEntry, SessionHead } from '@cairn/protocol';
import type { Item } from '../timeline/item.js';
import { str } from '../timeline/item.js';

export interface Subagent {
  readonly id: string;
  readonly label: string | undefined;
}

const AGENT_FILE = /[\\/]agent-([A-Za-z0-9_-]+)\.jsonl(?:\.zst)?$/;

export function subagentsOf(
  head: SessionHead | undefined,
  mainItems: readonly Item[],
  ledger: readonly DumpIdEntry[],
): Subagent[] {
  const found = new Map<string, string | undefined>();
  const add = (id: string | undefined, label: string | undefined) => {
    if (!id) return;
    if (!found.has(id) || (found.get(id) === undefined && label !== undefined)) found.set(id, label);
  };
  for (const item of mainItems) {
    if (item.type !== 'message:sub:out') continue;
    add(str(item, 'agent_id'), str(item, 'description') ?? str(item, 'name') ?? str(item, 'subagent_type'));
  }
  for (const e of ledger) if (e.kind === 'agent') add(e.id, e.label);
  for (const file of head?.files?.slice(1) ?? []) {
    const id = AGENT_FILE.exec(file)?.[1];
    add(id, id?.startsWith('acompact-') ? 'compaction summarizer' : undefined);
  }
  return [...found].map(([id, label]) => ({ id, label }));
}
