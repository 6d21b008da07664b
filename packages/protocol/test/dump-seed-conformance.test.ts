// cairn's dump vocabulary beside the contract's own TypeBox schemas, value by value. The contract's
// `control/dump.ts` and the `session_dump_write` part of `control/session.ts` are taken from the
// contract file at run time, compiled against the installed TypeBox, and both sides judge the same
// generated values: the contract with `Value.Check`, cairn with `validate`. They must agree on every
// value, except where a difference is listed below with its reason.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as cairn from '../src/index.js';
import { int, pick, prng, type Random } from './random-json.js';
import { addedSource, seedFile } from './support/seed-files.js';

const SEED = '000_59212e7329a0d57a.txt';
const DUMP_TS = 'package/src/control/dump.ts';
const SESSION_TS = 'package/src/control/session.ts';
const seedPath = seedFile(SEED);
const PER_NAME = 2000;

/**
 * The new side of one file of the diff: context and added lines of every hunk, without their mark.
 * Between hunks the unchanged lines are missing; where that leaves a doc comment open it is closed,
 * and the line the hunk header names as its context (the declaration the hunk falls in) is put back
 * when it was among the missing ones.
 */
function newSide(diff: string, path: string): string {
  const lines = diff.split('\n');
  const at = lines.findIndex((line) => line.trim() === path);
  if (at < 0) throw new Error(`${path} is not in the contract`);
  const out: string[] = [];
  const insideComment = () => {
    const text = out.join('\n');
    return text.lastIndexOf('/*') > text.lastIndexOf('*/');
  };
  let next: number | undefined;
  for (let i = at + 1; i < lines.length; i++) {
    const line = lines[i]!;
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@ ?(.*)$/.exec(line);
    if (hunk) {
      const start = Number(hunk[1]);
      if (next !== undefined && start > next) {
        if (insideComment()) out.push(' */');
        const context = hunk[2] ?? '';
        if (context !== '' && !out.includes(context)) out.push(context);
      }
      next = start;
      continue;
    }
    if (line.startsWith('+') || line.startsWith(' ')) out.push(line.slice(1));
    else if (line === '') out.push('');
    else if (line.startsWith('-')) continue;
    else break; // the next file's name
    if (!line.startsWith('-') && next !== undefined) next++;
  }
  return out.join('\n');
}

/** From `from` up to the end of the statement that starts with `to`. */
function span(source: string, from: string, to: string): string {
  const start = source.indexOf(from);
  const end = source.indexOf(';', source.indexOf(to, start));
  if (start < 0 || end < 0) throw new Error(`cannot find ${from} … ${to} in the contract`);
  return source.slice(start, end + 1);
}

const HERE = dirname(fileURLToPath(import.meta.url));
const typebox = join(
  dirname(createRequire(import.meta.url).resolve('@sinclair/typebox')),
  '../esm/index.mjs',
);

// The contract's diff does not carry its `envelope.ts` and `identifiers.ts`. These stand-ins compose
// a request and a reply the way the contract's fixtures show them (flat, beside `request_id` and
// `op` / `ok`; an intersection, so as open as its parts), and take the identifiers as cairn has them:
// what they accept is outside this diff, so it is not what this test compares.
const ENVELOPE = `import { Type } from '@sinclair/typebox';
import { RequestId } from '${pathToFileURL(join(HERE, '../src/identifiers.ts')).href}';
export function request(op, args) {
  return Type.Intersect([Type.Object({ op: Type.Literal(op), request_id: RequestId }), args]);
}
export function response(op, body) {
  return Type.Intersect([Type.Object({ ok: Type.Literal(true), request_id: RequestId }), body]);
}
`;
const IDENTIFIERS = `export { InstanceId, Sid, Timestamp } from '${pathToFileURL(join(HERE, '../src/identifiers.ts')).href}';\n`;

type Seed = Record<string, unknown>;
let scratch: string | undefined;
let seed: Seed;
let seedSession: Seed;

beforeAll(async () => {
  if (seedPath === undefined) return;
  const diff = readFileSync(seedPath, 'utf8');
  scratch = mkdtempSync(join(tmpdir(), 'cairn-seed-dump-'));
  mkdirSync(join(scratch, 'control'));
  const linked = (source: string) =>
    source.replaceAll(`"@sinclair/typebox"`, JSON.stringify(pathToFileURL(typebox).href));
  writeFileSync(
    join(scratch, 'envelope.ts'),
    linked(ENVELOPE.replaceAll("'@sinclair/typebox'", '"@sinclair/typebox"')),
  );
  writeFileSync(join(scratch, 'identifiers.ts'), IDENTIFIERS);
  writeFileSync(join(scratch, 'control/dump.ts'), linked(addedSource(diff, DUMP_TS)));
  const session = newSide(diff, SESSION_TS);
  const header = session.slice(0, session.indexOf('/** Ends the OS process'));
  const dumpWrite = span(session, 'export const SessionDumpWriteArgs', 'export type SessionDumpWriteResult');
  const requests = [
    'export const SessionDumpWriteRequest = request("session_dump_write", SessionDumpWriteArgs);',
    'export const SessionDumpWriteResponse = response("session_dump_write", SessionDumpWriteResult);',
  ].join('\n');
  writeFileSync(join(scratch, 'control/session.ts'), linked(`${header}\n${dumpWrite}\n${requests}\n`));
  seed = (await import(/* @vite-ignore */ pathToFileURL(join(scratch, 'control/dump.ts')).href)) as Seed;
  seedSession = (await import(
    /* @vite-ignore */ pathToFileURL(join(scratch, 'control/session.ts')).href
  )) as Seed;
});

afterAll(() => {
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

// --- values shaped by the contract's schemas ---

/** Strings a value may take: type names and selectors of every family, near misses, ids, free text. */
const STRINGS = [
  'message:user:in',
  'message:user:out',
  'message:sub:in',
  'message:sub:out',
  'message:session:in',
  'message:session:out',
  'message:user',
  'message',
  'thinking',
  'notice:slash',
  'notice:interrupt',
  'system:compact',
  'system:api-error',
  'system:task',
  'system:caveat',
  'system:resume',
  'system:unknown',
  'system:attachment:queued_command',
  'system:attachment:todo.v2',
  'system:attachment',
  'hook:PreToolUse',
  'hook:Stop',
  'hook:started',
  'hook',
  'tool:Bash',
  'tool:Read',
  'tool:Write',
  'tool:Edit',
  'tool:Grep',
  'tool:Glob',
  'tool:WebFetch',
  'tool:WebSearch',
  'tool:Agent',
  'tool:SendMessage',
  'tool:Monitor',
  'tool:Skill',
  'tool:TodoWrite',
  'tool:TaskStop',
  'tool:CronCreate',
  'tool:exec_command',
  'tool:mcp__srv.do-it',
  'tool',
  '-thinking',
  '-tool:Grep',
  '@file',
  '@howto',
  '-@file',
  '@',
  'Tool:Bash',
  'tool:',
  'tool:Bash Run',
  'hook:PreToolUse:Bash',
  '',
  'a',
  'x y',
  'use',
  'result',
  'agent',
  'task',
  'tool_use',
  'msg',
  'sid',
  'cron',
  'additionalContext',
  'output',
  'block',
  'started',
  '6f1a2b3c-4d5e-4f60-8a91-b2c3d4e5f607',
  '3f9c1a7b5e2d48069c1a7b5e2d480691',
  'a471372f2',
  '../../etc/passwd',
  'dump のアイテム型',
  '1',
] as const;

const EXTRA_KEYS = ['x_note', 'extra', 'from_a_newer_writer'] as const;

interface JsonSchema {
  readonly type?: string;
  readonly const?: unknown;
  readonly anyOf?: readonly JsonSchema[];
  readonly allOf?: readonly JsonSchema[];
  readonly properties?: Record<string, JsonSchema>;
  readonly required?: readonly string[];
  readonly patternProperties?: Record<string, JsonSchema>;
  readonly items?: JsonSchema;
  readonly pattern?: string;
  readonly minLength?: number;
  readonly minimum?: number;
}

function stringFor(random: Random, schema: JsonSchema): string {
  const pattern = schema.pattern === undefined ? undefined : new RegExp(schema.pattern);
  const fits = STRINGS.filter(
    (s) => (pattern === undefined || pattern.test(s)) && s.length >= (schema.minLength ?? 0),
  );
  return fits.length > 0 && random() < 0.95 ? pick(random, fits) : pick(random, STRINGS);
}

/** A value the schema describes, mostly valid: every required field, some optional ones, now and then
 * a field the schema does not name. */
function generate(random: Random, schema: JsonSchema, depth = 0): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.anyOf) return generate(random, pick(random, schema.anyOf), depth);
  if (schema.allOf) {
    const out: Record<string, unknown> = {};
    for (const part of schema.allOf) Object.assign(out, generate(random, part, depth));
    return out;
  }
  switch (schema.type) {
    case 'string':
      return stringFor(random, schema);
    case 'integer':
      return random() < 0.9 ? int(random, 300_000) + (schema.minimum ?? 0) : pick(random, [-1, 0, 2 ** 40]);
    case 'number':
      return random() * 1000;
    case 'boolean':
      return random() < 0.5;
    case 'array':
      return depth > 4 || !schema.items
        ? []
        : Array.from({ length: int(random, 4) }, () => generate(random, schema.items!, depth + 1));
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(schema.properties ?? {})) {
        const required = schema.required?.includes(key) ?? false;
        if (required || random() < 0.5) out[key] = generate(random, value, depth + 1);
      }
      for (const [pattern, value] of Object.entries(schema.patternProperties ?? {})) {
        const re = new RegExp(pattern);
        for (let n = int(random, 4); n > 0; n--) {
          const keys = STRINGS.filter((s) => random() < 0.1 || re.test(s));
          out[pick(random, keys.length > 0 ? keys : STRINGS)] = generate(random, value, depth + 1);
        }
      }
      if (random() < 0.1) out[pick(random, EXTRA_KEYS)] = pick(random, STRINGS);
      return out;
    }
    default:
      // Unknown: any JSON.
      return pick(random, [null, 1, 'text', [], { type: 'queued_command' }, true]);
  }
}

/** One change that may make a value invalid: a field dropped, retyped, emptied, pushed out of range,
 * or one added; anywhere in the value. */
function mutate(random: Random, value: unknown): unknown {
  if (Array.isArray(value)) {
    if (value.length === 0 || random() < 0.2) return [...value, pick(random, [...STRINGS, 7, null])];
    const i = int(random, value.length);
    return value.map((v, j) => (j === i ? mutate(random, v) : v));
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    if (entries.length === 0 || random() < 0.15) {
      out[pick(random, [...EXTRA_KEYS, 'outcome', 'role', 'status'])] = pick(random, [...STRINGS, 3]);
      return out;
    }
    const [key, inner] = pick(random, entries);
    const roll = random();
    if (roll < 0.25) delete out[key];
    else if (roll < 0.6) out[key] = mutate(random, inner);
    else out[key] = pick(random, [...STRINGS, -1, 0, 1.5, 42, true, null, [], {}]);
    return out;
  }
  if (typeof value === 'string') return pick(random, STRINGS);
  if (typeof value === 'number') return pick(random, [-1, 0, 1.5, '12']);
  return pick(random, [0, 'true', null]);
}

// --- the comparison ---

interface Difference {
  /** Why cairn answers otherwise, on purpose. */
  readonly reason: string;
  /** Whether this difference accounts for a value the two sides disagree on. */
  readonly explains: (value: unknown, seedAccepts: boolean, cairnAccepts: boolean) => boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A hook item, anywhere in the value, with no `outcome`. */
function hasHookWithoutOutcome(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasHookWithoutOutcome);
  if (!isObject(value)) return false;
  if (typeof value.type === 'string' && value.type.startsWith('hook:') && !('outcome' in value)) return true;
  return Object.values(value).some(hasHookWithoutOutcome);
}

/** The differences cairn keeps on purpose. Each must account for at least one generated value, or it
 * is stale and the list says more than cairn does. */
const DIFFERENCES: Record<string, Difference> = {
  hookWithoutOutcome: {
    reason:
      'a hook run the agent recorded only as started has no outcome; cairn leaves `outcome` out (with `status: "started"`) instead of stating one nobody saw, where the contract requires it',
    explains: (value, seedAccepts, cairnAccepts) =>
      !seedAccepts && cairnAccepts && hasHookWithoutOutcome(value),
  },
};

/** What each side calls the same schema. */
const NAMES: readonly (readonly [string, (s: Seed, t: Seed) => TSchema, TSchema])[] = [
  ['TranscriptItemType', (s) => s.TranscriptItemType as TSchema, cairn.TranscriptItemType],
  ['TranscriptItemSelector', (s) => s.TranscriptItemSelector as TSchema, cairn.TranscriptItemSelector],
  ['TranscriptItem', (s) => s.TranscriptItem as TSchema, cairn.TranscriptItem],
  ['DumpIdKind', (s) => s.DumpIdKind as TSchema, cairn.DumpIdKind],
  ['DumpIdEntry', (s) => s.DumpIdEntry as TSchema, cairn.DumpIdEntry],
  ['DumpIds', (s) => s.DumpIds as TSchema, cairn.DumpIds],
  ['SessionDumpFile', (s) => s.SessionDumpFile as TSchema, cairn.SessionDumpFile],
  ['DumpPreset', (s) => s.DumpPreset as TSchema, cairn.DumpPreset],
  ['DumpPresetsReadArgs', (s) => s.DumpPresetsReadArgs as TSchema, cairn.DumpPresetsReadArgs],
  ['DumpPresetsReadResult', (s) => s.DumpPresetsReadResult as TSchema, cairn.DumpPresetsReadResult],
  ['DumpPresetsReadRequest', (s) => s.DumpPresetsReadRequest as TSchema, cairn.DumpPresetsReadRequest],
  ['DumpPresetsReadResponse', (s) => s.DumpPresetsReadResponse as TSchema, cairn.DumpPresetsReadResponse],
  ['SessionDumpWriteArgs', (_, t) => t.SessionDumpWriteArgs as TSchema, cairn.SessionDumpWriteArgs],
  ['SessionDumpWriteResult', (_, t) => t.SessionDumpWriteResult as TSchema, cairn.SessionDumpWriteResult],
  ['SessionDumpWriteRequest', (_, t) => t.SessionDumpWriteRequest as TSchema, cairn.SessionDumpWriteRequest],
  [
    'SessionDumpWriteResponse',
    (_, t) => t.SessionDumpWriteResponse as TSchema,
    cairn.SessionDumpWriteResponse,
  ],
];

interface Tally {
  checked: number;
  /** Values the contract accepts. */
  accepted: number;
  same: number;
  onPurpose: Record<string, number>;
  unexplained: { value: unknown; seed: boolean; cairn: boolean }[];
}

function compare(name: string, seedSchema: TSchema, cairnSchema: TSchema, random: Random): Tally {
  const tally: Tally = { checked: 0, accepted: 0, same: 0, onPurpose: {}, unexplained: [] };
  for (let n = 0; n < PER_NAME; n++) {
    let value = generate(random, seedSchema as JsonSchema);
    // Half as generated, half changed once or twice.
    if (n % 2 === 1) value = mutate(random, value);
    if (n % 4 === 3) value = mutate(random, value);
    // Now and then not the shape at all.
    if (n % 16 === 15) value = pick(random, [null, 'text', 3, [], [value]]);
    const s = Value.Check(seedSchema, value);
    const c = cairn.validate(cairnSchema, value).ok;
    tally.checked++;
    if (s) tally.accepted++;
    if (s === c) {
      tally.same++;
      continue;
    }
    const why = Object.entries(DIFFERENCES).find(([, d]) => d.explains(value, s, c));
    if (why) tally.onPurpose[why[0]] = (tally.onPurpose[why[0]] ?? 0) + 1;
    else tally.unexplained.push({ value, seed: s, cairn: c });
  }
  void name;
  return tally;
}

describe.skipIf(seedPath === undefined)('the dump vocabulary against the contract, value by value', () => {
  const tallies = new Map<string, Tally>();

  it('reads the dump request of the contract whole from the diff', () => {
    const args = seedSession.SessionDumpWriteArgs as { properties: Record<string, unknown> };
    expect(Object.keys(args.properties)).toEqual([
      'sid',
      'agent_id',
      'since_at',
      'since_uuid',
      'until_at',
      'until_uuid',
      'types',
      'preset',
      'no_thinking',
      'no_agent',
    ]);
    const result = seedSession.SessionDumpWriteResult as { properties: Record<string, unknown> };
    expect(Object.keys(result.properties)).toEqual(['path', 'instance', 'entries', 'ids', 'bytes']);
  });

  it('spells out the same fixed type names', () => {
    expect([...cairn.TRANSCRIPT_ITEM_TYPES]).toEqual([...(seed.TRANSCRIPT_ITEM_TYPES as string[])]);
  });

  it('accepts the examples the contract gives, as the contract does', () => {
    for (const item of cairn.TRANSCRIPT_ITEMS) {
      expect(Value.Check(seed.TranscriptItem as TSchema, item)).toBe(true);
      expect(cairn.validate(cairn.TranscriptItem, item).ok).toBe(true);
    }
    expect(Value.Check(seed.SessionDumpFile as TSchema, cairn.SESSION_DUMP_FILE)).toBe(true);
    expect(
      Value.Check(seedSession.SessionDumpWriteRequest as TSchema, cairn.SESSION_DUMP_WRITE_REQUEST),
    ).toBe(true);
    expect(
      Value.Check(seedSession.SessionDumpWriteResponse as TSchema, cairn.SESSION_DUMP_WRITE_RESPONSE),
    ).toBe(true);
    expect(Value.Check(seed.DumpPresetsReadRequest as TSchema, cairn.DUMP_PRESETS_READ_REQUEST)).toBe(true);
    expect(Value.Check(seed.DumpPresetsReadResponse as TSchema, cairn.DUMP_PRESETS_READ_RESPONSE)).toBe(true);
  });

  it.each(NAMES.map(([name]) => name))('%s: cairn accepts exactly what the contract accepts', (name) => {
    const [, seedOf, cairnSchema] = NAMES.find(([n]) => n === name)!;
    const random = prng(0x5eed + NAMES.findIndex(([n]) => n === name));
    const tally = compare(name, seedOf(seed, seedSession), cairnSchema, random);
    tallies.set(name, tally);
    expect(tally.unexplained.length, JSON.stringify(tally.unexplained.slice(0, 3), null, 1)).toBe(0);
    // Both sides are exercised: values the contract takes and values it refuses.
    expect(tally.accepted).toBeGreaterThan(PER_NAME / 10);
    expect(tally.accepted).toBeLessThan(PER_NAME);
    expect(tally.checked).toBe(PER_NAME);
  });

  it('uses every listed difference, and reports the counts', () => {
    const total = {
      names: tallies.size,
      checked: 0,
      accepted: 0,
      same: 0,
      onPurpose: {} as Record<string, number>,
    };
    for (const t of tallies.values()) {
      total.checked += t.checked;
      total.accepted += t.accepted;
      total.same += t.same;
      for (const [k, v] of Object.entries(t.onPurpose)) total.onPurpose[k] = (total.onPurpose[k] ?? 0) + v;
    }
    for (const key of Object.keys(DIFFERENCES)) expect(total.onPurpose[key], key).toBeGreaterThan(0);
    const lines = [
      `names checked: ${total.names} (${total.checked} values, ${total.accepted} of them valid for the contract)`,
      `same: ${total.same}`,
      ...Object.entries(total.onPurpose).map(
        ([k, v]) => `different on purpose: ${v} (${k}: ${DIFFERENCES[k]!.reason})`,
      ),
    ];
    console.log(`dump vocabulary vs contract\n${lines.join('\n')}`);
  });
});
