// The record an item was read from, fetched on demand with `transcript_read`: for the bodies an item
// only counts (an Edit's before and after) and for looking at a record as the agent wrote it.
import type { OpArgs } from '@cairn/protocol';
import { parseJson } from '@cairn/transcript/items';
import { useEffect, useState } from 'preact/hooks';
import { useServices } from '../context.js';
import { shownText } from '../display.js';
import { type Item, isObject, obj } from '../timeline/item.js';
import { MAIN_LANE } from '../timeline/model.js';

export interface Where {
  readonly agent: string;
  readonly sid: string;
  readonly lane: string;
}

export type RawState =
  | { readonly state: 'loading' }
  | { readonly state: 'error'; readonly message: string }
  | { readonly state: 'ready'; readonly line: string; readonly record: unknown };

export function useRawRecord(where: Where, item: Item, enabled: boolean): RawState | undefined {
  const { conn } = useServices();
  const [raw, setRaw] = useState<RawState | undefined>(undefined);
  const source = obj(item, 'source');
  const offset = typeof source?.offset === 'number' ? source.offset : undefined;
  const length = typeof source?.length === 'number' ? source.length : undefined;
  useEffect(() => {
    if (!enabled || raw !== undefined) return;
    if (offset === undefined) {
      setRaw({ state: 'error', message: 'this item does not say which record it came from' });
      return;
    }
    setRaw({ state: 'loading' });
    const args: Record<string, unknown> = {
      sid: where.sid,
      agent: where.agent,
      after: offset,
      max_bytes: Math.max(1, length ?? 1),
    };
    if (where.lane !== MAIN_LANE) args.agent_id = where.lane;
    void conn.request('transcript_read', args as OpArgs<'transcript_read'>).then((reply) => {
      if (!reply.ok) {
        setRaw({ state: 'error', message: reply.error.message });
        return;
      }
      const line = reply.value.lines[0] ?? '';
      let record: unknown;
      try {
        record = parseJson(line);
      } catch {
        record = undefined;
      }
      setRaw({ state: 'ready', line, record });
    });
  }, [enabled, offset]);
  return raw;
}

/** The input of the call `toolUseId` inside a raw record, wherever the agent put it. */
export function callInput(
  record: unknown,
  toolUseId: string | undefined,
): Record<string, unknown> | undefined {
  if (!isObject(record)) return undefined;
  const message = isObject(record.message) ? record.message : undefined;
  const content = message && Array.isArray(message.content) ? message.content : [];
  for (const block of content) {
    if (isObject(block) && block.type === 'tool_use' && (toolUseId === undefined || block.id === toolUseId)) {
      return isObject(block.input) ? block.input : undefined;
    }
  }
  // Codex and others keep a call's arguments as a JSON string on the record's payload.
  const payload = isObject(record.payload) ? record.payload : undefined;
  if (payload && typeof payload.arguments === 'string') {
    try {
      const args: unknown = parseJson(payload.arguments);
      return isObject(args) ? args : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** A record's line as indented JSON when it parses, with what it hides made visible. */
export function pretty(line: string): string {
  try {
    return shownText(JSON.stringify(JSON.parse(line), null, 2));
  } catch {
    return shownText(line);
  }
}
