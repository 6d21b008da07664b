// A seeded generator of damaged session files: it takes the corpus files of every agent and
// mutates them the way disks, editors, crashes and attackers do. The same seed gives the same
// case, so a failure is replayed from its seed alone.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpusPath } from '../../../transcript/test/corpus.js';

/** mulberry32: small, fast and good enough to pick mutations. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Rand = () => number;
const int = (r: Rand, n: number): number => Math.floor(r() * n);
const pick = <T>(r: Rand, list: readonly T[]): T => list[int(r, list.length)]!;

/** A session as files: the main file first, then subagent files, each with where it goes in a home. */
export interface SourceSession {
  agent: 'claude-code' | 'codex' | 'gemini-cli' | 'qwen-code' | 'pi' | 'copilot-cli' | 'opencode';
  /** Paths relative to the home, and the bytes. */
  files: { rel: string; data: Uint8Array }[];
}

const read = (...parts: string[]) => new Uint8Array(readFileSync(corpusPath(...parts)));

/** Every session of the corpus the fuzzer starts from, one per session (subagent files included). */
export function corpusSessions(): SourceSession[] {
  const out: SourceSession[] = [];
  const claude = 'claude/projects';
  for (const project of readdirSync(corpusPath(claude))) {
    for (const name of readdirSync(corpusPath(claude, project)).filter((n) => n.endsWith('.jsonl'))) {
      const sid = name.slice(0, -'.jsonl'.length);
      const files = [{ rel: `.claude/projects/-fuzz/${sid}.jsonl`, data: read(claude, project, name) }];
      let subs: string[] = [];
      try {
        subs = readdirSync(corpusPath(claude, project, sid, 'subagents'));
      } catch {
        // No subagents.
      }
      for (const sub of subs)
        files.push({
          rel: `.claude/projects/-fuzz/${sid}/subagents/${sub}`,
          data: read(claude, project, sid, 'subagents', sub),
        });
      out.push({ agent: 'claude-code', files });
    }
  }
  const walk = (dir: string): string[] =>
    readdirSync(corpusPath(dir), { withFileTypes: true }).flatMap((d) =>
      d.isDirectory() ? walk(join(dir, d.name)) : [join(dir, d.name)],
    );
  for (const rel of walk('codex/sessions').filter((p) => p.endsWith('.jsonl')))
    out.push({
      agent: 'codex',
      files: [{ rel: `.codex/sessions/2026/01/01/${rel.split('/').pop()}`, data: read(rel) }],
    });
  for (const rel of walk('gemini/tmp').filter((p) => p.includes('/chats/')))
    out.push({
      agent: 'gemini-cli',
      files: [{ rel: `.gemini/tmp/fuzz/chats/${rel.split('/').pop()}`, data: read(rel) }],
    });
  for (const name of ['small.json', 'large.json', 'schema_drift.json', 'jsonl_v040.jsonl'])
    out.push({
      agent: 'gemini-cli',
      files: [
        {
          rel: `.gemini/tmp/fuzz/chats/session-2026-04-29T21-39-${name.replace(/\W/g, '')}.${name.split('.').pop()}`,
          data: read('more/gemini', name),
        },
      ],
    });
  for (const name of readdirSync(corpusPath('more/qwen')).filter((n) => n.endsWith('.jsonl')))
    out.push({
      agent: 'qwen-code',
      files: [{ rel: `.qwen/projects/fuzz/chats/${name}`, data: read('more/qwen', name) }],
    });
  out.push({
    agent: 'pi',
    files: [
      {
        rel: '.pi/agent/sessions/--fuzz--/2026-05-12T01-02-27-657Z_019e19b4-eb48-746a-aa6b-8dfcfa37954b.jsonl',
        data: read('more/pi', 'small.jsonl'),
      },
    ],
  });
  // Copilot CLI: one session folder per sample, named by the session id as Copilot names it.
  for (const [id, rel] of [
    ['aaaabbbb-1111-2222-3333-ccccddddeeee', 'subdir_v1/aaaabbbb-1111-2222-3333-ccccddddeeee/events.jsonl'],
    ['c0ffee00-0000-4000-8000-000000000001', 'small.jsonl'],
  ] as const)
    out.push({
      agent: 'copilot-cli',
      files: [{ rel: `.copilot/session-state/${id}/events.jsonl`, data: read('more/copilot', rel) }],
    });
  // OpenCode: each session of the JSON storage trees as its session, message and part files.
  for (const tree of ['more/opencode/storage_v2', 'more/opencode/storage_legacy']) {
    const all = walk(tree).map((rel) => ({ rel: rel.slice(tree.length + 1), data: read(rel) }));
    for (const s of all.filter((f) => f.rel.startsWith('session/'))) {
      const rest = all.filter((f) => f.rel.startsWith('message/') || f.rel.startsWith('part/'));
      const id = (JSON.parse(new TextDecoder().decode(s.data)) as { id: string }).id;
      const mine = rest.filter((f) => new TextDecoder().decode(f.data).includes(id) || f.rel.includes(id));
      const parts = rest.filter(
        (f) =>
          f.rel.startsWith('part/') &&
          mine.some((m) => f.rel.includes(m.rel.split('/').pop()!.replace('.json', ''))),
      );
      out.push({
        agent: 'opencode',
        files: [s, ...new Set([...mine, ...parts])].map((f) => ({
          rel: `.local/share/opencode/storage/${f.rel}`,
          data: f.data,
        })),
      });
    }
  }
  return out;
}

export const MUTATIONS = [
  'flip',
  'cut',
  'delete',
  'duplicate',
  'shuffle',
  'huge',
  'deep',
  'wrongType',
  'oddNumber',
  'oddTimestamp',
  'utf8',
  'nul',
  'crlf',
  'bom',
  'zstd',
] as const;
export type Mutation = (typeof MUTATIONS)[number];

export interface FuzzCase {
  seed: number;
  agent: SourceSession['agent'];
  files: { rel: string; data: Uint8Array }[];
  /** The main file is to be written compressed (and its compressed bytes damaged). */
  zstd: boolean;
  /** What was done, for the failure message. */
  steps: string[];
}

const enc = new TextEncoder();
/** How many bytes one duplication may add. */
const MAX_ADDED = 4 * 1024 * 1024;

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
const dec = new TextDecoder();
const MAX_LINES = 40;

/** Lines of a file without their newline; the last one may be empty. */
const linesOf = (data: Uint8Array): string[] => dec.decode(data).split('\n');
const fromLines = (lines: readonly string[]): Uint8Array => enc.encode(lines.join('\n'));

/**
 * A JSONL file cut to its first line and a window of at most MAX_LINES others, so that a case stays
 * small; over many seeds every window of every file is reached.
 */
function window(r: Rand, data: Uint8Array): Uint8Array {
  const lines = linesOf(data);
  if (lines.length <= MAX_LINES + 1) return data;
  const from = 1 + int(r, lines.length - MAX_LINES);
  return fromLines([lines[0]!, ...lines.slice(from, from + MAX_LINES), '']);
}

const ODD_NUMBERS = [1e300, -1, -1e300, 1.5, 0.1, 2 ** 60, -0, Number.MAX_SAFE_INTEGER + 2, 1e21];
const ODD_TIMES = [
  1e300,
  -1,
  0,
  1.5,
  '1969-07-20T20:17:40Z',
  '2026-13-45T99:99:99Z',
  '',
  'yesterday',
  253402300800000,
  9e15,
];
const WRONG = (r: Rand): unknown =>
  pick(r, [null, true, 0, -7, 'text', '', [], {}, [1, 'a', null], { type: 'x' }, [[[]]], '{"a":1}']);
const KNOWN_FIELDS = [
  'type',
  'uuid',
  'parentUuid',
  'sessionId',
  'timestamp',
  'message',
  'content',
  'usage',
  'model',
  'id',
  'requestId',
  'isSidechain',
  'isMeta',
  'toolUseResult',
  'subtype',
  'data',
  'attachment',
  'payload',
  'role',
  'name',
  'arguments',
  'call_id',
  'output',
  'info',
  'tokens',
  'toolCalls',
  'thoughts',
  'messages',
  'input_tokens',
  'output_tokens',
  'cache_read_input_tokens',
  'tool_use_id',
  'is_error',
  'text',
  'input',
  'result',
  'status',
  'compactMetadata',
  'agentId',
  'cwd',
] as const;

/** Visits every (object, key) of a parsed value and lets `f` replace one picked at random. */
function mutateValue(
  r: Rand,
  value: unknown,
  match: (key: string, v: unknown) => boolean,
  make: () => unknown,
): boolean {
  const spots: [Record<string, unknown>, string][] = [];
  const visit = (v: unknown, depth: number) => {
    if (depth > 12 || typeof v !== 'object' || v === null) return;
    for (const [k, child] of Object.entries(v)) {
      if (match(k, child)) spots.push([v as Record<string, unknown>, k]);
      visit(child, depth + 1);
    }
  };
  visit(value, 0);
  if (spots.length === 0) return false;
  const [obj, key] = pick(r, spots);
  obj[key] = make();
  return true;
}

/** Applies one structured mutation to one JSON text (a line, or a whole legacy document). */
function mutateJson(r: Rand, text: string, m: Mutation): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  let done = false;
  if (m === 'wrongType')
    done = mutateValue(
      r,
      value,
      (k) => (KNOWN_FIELDS as readonly string[]).includes(k),
      () => WRONG(r),
    );
  else if (m === 'oddNumber')
    done = mutateValue(
      r,
      value,
      (_k, v) => typeof v === 'number',
      () => pick(r, ODD_NUMBERS),
    );
  else if (m === 'oddTimestamp')
    done = mutateValue(
      r,
      value,
      (k) => k === 'timestamp' || k.endsWith('Time') || k === 'lastUpdated',
      () => pick(r, ODD_TIMES),
    );
  else if (m === 'huge')
    done = mutateValue(
      r,
      value,
      (_k, v) => typeof v === 'string',
      () => 'h'.repeat(100_000 + int(r, 400_000)),
    );
  else if (m === 'deep')
    done = mutateValue(
      r,
      value,
      () => true,
      () => '<DEEP>',
    );
  if (!done) return undefined;
  let out: string;
  try {
    out = JSON.stringify(value);
  } catch {
    // A value an earlier mutation nested too deep to write back: this mutation is skipped.
    return undefined;
  }
  if (m !== 'deep') return out;
  const levels = 2_000 + int(r, 10_000);
  return out.replace('"<DEEP>"', `${'['.repeat(levels)}${']'.repeat(levels)}`);
}

function mutateBytes(r: Rand, data: Uint8Array, m: Mutation): Uint8Array {
  switch (m) {
    case 'flip': {
      const out = new Uint8Array(data);
      for (let n = 1 + int(r, 8); n > 0 && out.length > 0; n--) out[int(r, out.length)] = int(r, 256);
      return out;
    }
    case 'cut':
      return data.subarray(0, int(r, data.length + 1));
    case 'utf8':
    case 'nul': {
      const at = int(r, data.length + 1);
      const junk: number[] =
        m === 'nul'
          ? [0]
          : pick(r, [
              [0xff],
              [0xc0, 0xaf],
              [0xed, 0xa0, 0x80],
              [0xe2, 0x82],
              [0xf8, 0x88, 0x80, 0x80, 0x80],
              [0x80],
            ]);
      return concat(data.subarray(0, at), new Uint8Array(junk), data.subarray(at));
    }
    case 'bom':
      return concat(new Uint8Array([0xef, 0xbb, 0xbf]), data);
    case 'crlf': {
      const lines = linesOf(data);
      const all = r() < 0.5;
      return enc.encode(
        lines.map((l, i) => (i < lines.length - 1 && (all || r() < 0.3) ? `${l}\r` : l)).join('\n'),
      );
    }
    default:
      return data;
  }
}

function mutateLines(r: Rand, data: Uint8Array, m: Mutation): Uint8Array | undefined {
  const lines = linesOf(data);
  const body = lines.length - (lines.at(-1) === '' ? 1 : 0);
  if (body === 0) return undefined;
  const i = int(r, body);
  switch (m) {
    case 'delete':
      lines.splice(i, 1 + int(r, 3));
      return fromLines(lines);
    case 'duplicate': {
      // Many copies of a short line, a few of a long one: a case stays a few megabytes at most.
      const most = Math.max(
        1,
        Math.min(r() < 0.1 ? 2000 : 3, Math.floor(MAX_ADDED / (lines[i]!.length + 1))),
      );
      const copies = Array.from({ length: 1 + int(r, most) }, () => lines[i]!);
      lines.splice(int(r, body + 1), 0, ...copies);
      return fromLines(lines);
    }
    case 'shuffle': {
      const from = int(r, body);
      const to = Math.min(body, from + 2 + int(r, 10));
      const part = lines.slice(from, to);
      for (let k = part.length - 1; k > 0; k--) {
        const j = int(r, k + 1);
        [part[k], part[j]] = [part[j]!, part[k]!];
      }
      lines.splice(from, part.length, ...part);
      return fromLines(lines);
    }
    default: {
      const changed = mutateJson(r, lines[i]!, m);
      if (changed === undefined) return undefined;
      lines[i] = changed;
      return fromLines(lines);
    }
  }
}

const isJsonl = (rel: string) => rel.endsWith('.jsonl');

/** The case a seed gives: one corpus session, cut to a window, with one to four mutations. */
export function makeCase(seed: number, sessions: readonly SourceSession[]): FuzzCase {
  const r = rng(seed);
  const session = pick(r, sessions);
  const files = session.files.map((f) => ({ rel: f.rel, data: isJsonl(f.rel) ? window(r, f.data) : f.data }));
  const steps: string[] = [`${session.agent} ${session.files[0]!.rel.split('/').pop()}`];
  let zstd = false;
  for (let n = 1 + int(r, 4); n > 0; n--) {
    const m = pick(r, MUTATIONS);
    const fi = r() < 0.7 ? 0 : int(r, files.length);
    const file = files[fi]!;
    if (m === 'zstd') {
      if (session.agent === 'codex') zstd = true;
      steps.push('zstd');
      continue;
    }
    let next: Uint8Array | undefined;
    if (['flip', 'cut', 'utf8', 'nul', 'bom', 'crlf'].includes(m)) next = mutateBytes(r, file.data, m);
    else if (isJsonl(file.rel)) next = mutateLines(r, file.data, m);
    else if (['wrongType', 'oddNumber', 'oddTimestamp', 'huge', 'deep'].includes(m)) {
      const text = mutateJson(r, dec.decode(file.data), m);
      next = text === undefined ? undefined : enc.encode(text);
    }
    if (next === undefined) continue;
    file.data = next;
    steps.push(`${m}@${fi}`);
  }
  return { seed, agent: session.agent, files, zstd, steps };
}

/** Damage for a compressed file: a few flipped bytes or a cut, or none at all (half the time). */
export function damageCompressed(seed: number, data: Uint8Array): { data: Uint8Array; step: string } {
  const r = rng(seed ^ 0x5a5a5a5a);
  const k = int(r, 4);
  if (k === 0) return { data: mutateBytes(r, data, 'flip'), step: 'zstd flip' };
  if (k === 1) return { data: data.subarray(0, int(r, data.length)), step: 'zstd cut' };
  return { data, step: 'zstd intact' };
}
