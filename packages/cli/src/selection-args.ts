// The selection and range options `cairn dump` and `cairn show` share, read into the arguments of
// `session_dump_write`. A value that cannot be read is a usage error naming it, never an empty dump.
import { OPEN_ITEM_FAMILIES, TRANSCRIPT_ITEM_TYPES } from '@cairn/protocol';
import { isSelector } from '@cairn/transcript';
import { parseTime, TIME_FORMS } from './time.js';
import { UsageError } from './usage.js';

export const SELECTION_OPTIONS = {
  agent: { type: 'string' },
  'agent-id': { type: 'string' },
  types: { type: 'string' },
  preset: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  'since-uuid': { type: 'string' },
  'until-uuid': { type: 'string' },
  'no-thinking': { type: 'boolean' },
  'no-agent': { type: 'boolean' },
} as const;

export interface SelectionValues {
  'agent-id'?: string | undefined;
  types?: string | undefined;
  preset?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  'since-uuid'?: string | undefined;
  'until-uuid'?: string | undefined;
  'no-thinking'?: boolean | undefined;
  'no-agent'?: boolean | undefined;
}

export interface SelectionArgs {
  agent_id?: string;
  types?: string[];
  preset?: string;
  since_at?: number;
  until_at?: number;
  since_uuid?: string;
  until_uuid?: string;
  no_thinking?: boolean;
  no_agent?: boolean;
}

/** Whether any option that selects items was given. */
export const selects = (v: SelectionValues): boolean =>
  [v['agent-id'], v.types, v.preset, v.since, v.until, v['since-uuid'], v['until-uuid']].some(
    (x) => x !== undefined,
  ) ||
  v['no-thinking'] === true ||
  v['no-agent'] === true;

export function selectionArgs(v: SelectionValues, usage: string, now = Date.now()): SelectionArgs {
  const out: SelectionArgs = {};
  const fail = (message: string): never => {
    throw new UsageError(`${message}\nusage: ${usage}`);
  };
  if (v['agent-id'] !== undefined) {
    if (v['agent-id'] === '') fail('--agent-id is empty');
    out.agent_id = v['agent-id'];
  }
  if (v.types !== undefined) {
    const types = v.types
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    if (types.length === 0) fail(`--types '${v.types}' names no type`);
    for (const t of types)
      if (!isSelector(t))
        fail(`--types: '${t}' is not a type name or prefix (like tool:Bash), -x, or @preset`);
      else if (!namesKnownType(t))
        fail(`--types: '${t.replace(/^-/, '')}' names no item type; types are ${TYPE_FAMILIES}`);
    out.types = types;
  }
  if (v.preset !== undefined) {
    if (!/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(v.preset)) fail(`--preset '${v.preset}' is not a preset name`);
    out.preset = v.preset;
  }
  for (const [flag, key] of [
    ['since', 'since_at'],
    ['until', 'until_at'],
  ] as const) {
    const raw = v[flag];
    if (raw === undefined) continue;
    const at = parseTime(raw, now);
    if (at === undefined) fail(`bad --${flag} '${raw}': give ${TIME_FORMS}`);
    out[key] = at;
  }
  if (v['since-uuid'] !== undefined) out.since_uuid = v['since-uuid'];
  if (v['until-uuid'] !== undefined) out.until_uuid = v['until-uuid'];
  if (out.since_at !== undefined && out.since_uuid !== undefined)
    fail('give --since or --since-uuid, not both');
  if (out.until_at !== undefined && out.until_uuid !== undefined)
    fail('give --until or --until-uuid, not both');
  if (out.since_at !== undefined && out.until_at !== undefined && out.since_at > out.until_at)
    fail(`--until '${v.until}' is before --since '${v.since}'`);
  if (v['no-thinking']) out.no_thinking = true;
  if (v['no-agent']) out.no_agent = true;
  return out;
}

/**
 * Whether a selector element can match an item: a preset, a type name or a prefix of one, or a name
 * under a family whose last part an agent coins (tool:Bash, hook:PreToolUse). A misspelling would
 * otherwise select nothing and look like a session without such items.
 */
function namesKnownType(element: string): boolean {
  const name = element.replace(/^-/, '');
  if (name.startsWith('@')) return true;
  const under = (prefix: string, full: string) => full === prefix || full.startsWith(`${prefix}:`);
  return (
    TRANSCRIPT_ITEM_TYPES.some((full) => under(name, full)) ||
    OPEN_ITEM_FAMILIES.some((family) => under(name, family) || under(family, name))
  );
}

const TYPE_FAMILIES = `${[...new Set([...TRANSCRIPT_ITEM_TYPES, ...OPEN_ITEM_FAMILIES])].join(', ')} (a prefix stands for every type under it; tool:, hook: and system:attachment: take any name)`;
