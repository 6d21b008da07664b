// Dumps of a real session written to a temporary cairn home and read back: the file validates, says
// what selection it applied, holds exactly the items that selection keeps, and renders to Markdown.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  SessionDumpFile,
  type SessionDumpFile as SessionDumpFileType,
  SessionDumpWriteResult,
  TranscriptItem,
  validate,
} from '@cairn/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  BUILTIN_PRESETS,
  buildDump,
  classifyTranscript,
  codeSpan,
  fenced,
  loadTranscript,
  presetLookup,
  renderDumpMarkdown,
  selection,
  type Transcript,
  writeDump,
} from '../../src/index.js';
import { corpus, corpusPath } from '../corpus.js';
import { corpusPlatform } from '../homes.js';

type Fields = Record<string, unknown>;

const SID = '4d5611e5-241a-462a-8d15-5122611a9569';
const SESSION = corpusPath(`claude/projects/-work-spotter/${SID}.jsonl`);
const AGENT = 'a2898e3';

const readJson = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));

function expectValid(file: unknown): asserts file is SessionDumpFileType {
  const checked = validate(SessionDumpFile, file);
  if (!checked.ok) throw new Error(checked.error.message);
}

/** What classifying the subject and applying the selection keeps, for comparison with a file. */
function expected(t: Transcript, args: { agent_id?: string; preset?: string; types?: string[] }): string[] {
  const c = classifyTranscript(t, { agentId: args.agent_id });
  const sel = selection(args, presetLookup(BUILTIN_PRESETS));
  if (!c.ok || !sel.ok) throw new Error('cannot classify');
  return c.value.items.filter((i) => sel.value.keeps(i.type)).map((i) => i.uuid);
}

describe.skipIf(!corpus)('dumps of a real session', () => {
  let t: Transcript;
  const home = mkdtempSync(join(tmpdir(), 'cairn-dump-'));
  const now = Date.parse('2026-03-01T10:00:00Z');

  beforeAll(async () => {
    const loaded = await loadTranscript(corpusPlatform(), { path: SESSION });
    if (!loaded.ok) throw new Error(loaded.error.message);
    t = loaded.value;
  });

  it('writes the howto preset of the session, expanded, with exactly the items it keeps', async () => {
    const r = await writeDump(t, { sid: SID, preset: 'howto' }, { home, now });
    if (!r.ok) throw new Error(r.error.message);
    const reply = validate(SessionDumpWriteResult, r.value);
    expect(reply.ok).toBe(true);
    expect(r.value.path.startsWith(join(home, 'dumps'))).toBe(true);
    expect(r.value.path.endsWith('.dump.json')).toBe(true);
    const text = readFileSync(r.value.path, 'utf8');
    expect(r.value.bytes).toBe(Buffer.byteLength(text));

    const file = readJson(r.value.path);
    expectValid(file);
    expect(file.sid).toBe(SID);
    expect(file.agent_id).toBeUndefined();
    expect(file.written_at).toBe(now);
    // The preset is written as what it came to: its own types and those of @shell and @file.
    expect(file.types).toContain('thinking');
    expect(file.types).toContain('message:sub');
    expect(file.types).toContain('tool:Bash');
    expect(file.types).toContain('tool:Read');
    expect(file.types.some((el) => el.includes('@'))).toBe(false);

    expect(file.items.map((i) => i.uuid)).toEqual(expected(t, { preset: 'howto' }));
    const types = new Set(file.items.map((i) => i.type));
    for (const type of [
      'message:user:in',
      'message:user:out',
      'thinking',
      'tool:Bash',
      'tool:Read',
      'tool:Edit',
    ])
      expect(types.has(type), type).toBe(true);
    for (const type of types) expect(type).not.toMatch(/^(hook|system|notice|tool:Agent)/);

    const counted = Object.values(r.value.entries).reduce((a, b) => a + b, 0);
    expect(counted).toBe(file.items.length);
    for (const [type, n] of Object.entries(r.value.entries))
      expect(file.items.filter((i) => i.type === type)).toHaveLength(n);

    // The ledger names the agent the session started, with its name and how it ended.
    const agent = file.ids.find((e) => e.kind === 'agent');
    expect(agent).toMatchObject({
      id: AGENT,
      label: 'Explore transcript rendering codebase',
      status: 'completed',
    });
    expect(file.ids.some((e) => e.kind === 'tool_use')).toBe(true);
    // And the shell command it left running in the background, by the task id it was given.
    expect(file.ids.find((e) => e.kind === 'task')).toMatchObject({
      id: 'b7636e2',
      label: 'Run SessionLive tests',
    });
    expect(r.value.ids).toEqual(file.ids);
  });

  it('writes the same preset of a subagent, read from its own side', async () => {
    const r = await writeDump(t, { sid: SID, agent_id: AGENT, preset: 'howto' }, { home, now });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.path).toContain(`-agent-${AGENT}-`);
    const file = readJson(r.value.path);
    expectValid(file);
    expect(file.agent_id).toBe(AGENT);
    expect(file.items.map((i) => i.uuid)).toEqual(expected(t, { agent_id: AGENT, preset: 'howto' }));
    expect(file.items[0]!.type).toBe('message:user:in');
    expect((file.items[0] as Fields).text).toMatch(/^Very thorough exploration/);
    expect(file.items.at(-1)!.type).toBe('message:user:out');
    // Its ledger does not list itself.
    expect(file.ids.some((e) => e.kind === 'agent' && e.id === AGENT)).toBe(false);
  });

  it('renders the same items as Markdown, each under its type and time, calls beside their results', async () => {
    const r = await writeDump(t, { sid: SID, preset: 'howto', format: 'md' }, { home, now });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.path.endsWith('.dump.md')).toBe(true);
    const md = readFileSync(r.value.path, 'utf8');
    expect(r.value.bytes).toBe(Buffer.byteLength(md));
    const built = buildDump(t, { sid: SID, preset: 'howto' }, { presets: BUILTIN_PRESETS, writtenAt: now });
    if (!built.ok) throw new Error(built.error.message);
    expect(md).toBe(renderDumpMarkdown(built.value.file));
    for (const item of built.value.file.items) {
      const time = new Date(item.at).toISOString().replace('T', ' ').slice(0, 19);
      expect(md).toContain(`${codeSpan(item.type)}`);
      expect(md).toMatch(
        new RegExp(`#{3,4} .*${escapeRegExp(time)} UTC.* · ${escapeRegExp(codeSpan(item.uuid))}`),
      );
    }
    // A Bash call's result heading follows the call's own section.
    const call = built.value.file.items.find(
      (i) => i.type === 'tool:Bash' && (i as Fields).result_item,
    ) as Fields;
    const callAt = md.indexOf(codeSpan(String(call.uuid)));
    const resultAt = md.indexOf(codeSpan(String(call.result_item)));
    expect(resultAt).toBeGreaterThan(callAt);
    expect(md.slice(callAt, resultAt)).not.toMatch(/\n### /);
  });

  it('cuts the range after classifying, so a result can name a call before it', () => {
    const c = classifyTranscript(t);
    if (!c.ok) throw new Error(c.error.message);
    const result = c.value.items.find((i) => i.type === 'tool:Bash' && (i as Fields).role === 'result')!;
    const call = c.value.items.find((i) => i.uuid === (result as Fields).parent_item)!;
    const built = buildDump(
      t,
      { sid: SID, since_uuid: result.uuid, types: ['tool:Bash'] },
      { presets: BUILTIN_PRESETS, writtenAt: now },
    );
    if (!built.ok) throw new Error(built.error.message);
    expect(built.value.file.items[0]!.uuid).toBe(result.uuid);
    expect((built.value.file.items[0] as Fields).parent_item).toBe(call.uuid);
    expect(built.value.file.items.some((i) => i.uuid === call.uuid)).toBe(false);
    expectValid(built.value.file);

    // An inclusive time range: both ends kept, and a call whose result is past the end says so.
    const at = result.at;
    const timed = buildDump(
      t,
      { sid: SID, since_at: call.at, until_at: call.at },
      { presets: BUILTIN_PRESETS, writtenAt: now },
    );
    if (!timed.ok) throw new Error(timed.error.message);
    expect(timed.value.file.items.every((i) => i.at === call.at)).toBe(true);
    expect(timed.value.file.items.some((i) => i.uuid === call.uuid)).toBe(true);
    if (at > call.at) {
      const kept = timed.value.file.items.find((i) => i.uuid === call.uuid) as Fields;
      expect(kept.result_item).toBeUndefined();
    }
  });

  it('refuses what it cannot honour, as values', () => {
    const opts = { presets: BUILTIN_PRESETS, writtenAt: now };
    const cases: [Record<string, unknown>, string, string][] = [
      [{ preset: 'nope' }, 'not_found', "unknown preset 'nope'"],
      [{ types: ['@nope'] }, 'not_found', "unknown preset 'nope'"],
      [{ agent_id: 'zzzzzz' }, 'not_found', "no subagent 'zzzzzz'"],
      [{ since_uuid: 'no-such-record' }, 'not_found', "no record 'no-such-record'"],
      [{ since_at: 1, since_uuid: 'x' }, 'invalid_args', 'one lower bound'],
      [{ since_at: 10, until_at: 5 }, 'invalid_args', 'before since_at'],
    ];
    for (const [args, code, message] of cases) {
      const r = buildDump(t, { sid: SID, ...args }, opts);
      expect(r.ok, message).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe(code);
        expect(r.error.message).toContain(message);
      }
    }
  });

  it('reads the presets from the config, and refuses a config with a cycle', async () => {
    const custom = mkdtempSync(join(tmpdir(), 'cairn-dump-'));
    writeFileSync(
      join(custom, 'config.json'),
      JSON.stringify({ dump: { presets: [{ name: 'mine', opts: { types: ['@howto', '-tool:Read'] } }] } }),
    );
    const r = await writeDump(t, { sid: SID, preset: 'mine' }, { home: custom, now });
    if (!r.ok) throw new Error(r.error.message);
    const file = readJson(r.value.path);
    expectValid(file);
    expect(file.types.at(-1)).toBe('-tool:Read');
    expect(file.items.some((i) => i.type === 'tool:Read')).toBe(false);
    expect(file.items.some((i) => i.type === 'tool:Edit')).toBe(true);

    writeFileSync(
      join(custom, 'config.json'),
      JSON.stringify({
        dump: {
          presets: [
            { name: 'a', opts: { types: ['@b'] } },
            { name: 'b', opts: { types: ['@a'] } },
          ],
        },
      }),
    );
    const refused = await writeDump(t, { sid: SID }, { home: custom, now });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.message).toContain('cycle: a -> b -> a');
  });

  it('never writes into an agent folder', async () => {
    const r = await writeDump(
      t,
      { sid: SID },
      {
        home,
        now,
        out: join(corpusPath('claude/projects/-work-spotter'), 'x.dump.json'),
        forbidden: [corpusPath('claude')],
      },
    );
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error._tag).toBe('DumpPathRefused');
  });

  it('dumps the whole session by default, every item valid, everything but the attachments', () => {
    const built = buildDump(t, { sid: SID }, { presets: BUILTIN_PRESETS, writtenAt: now });
    if (!built.ok) throw new Error(built.error.message);
    for (const item of built.value.file.items) expect(validate(TranscriptItem, item).ok).toBe(true);
    expect(built.value.file.items.some((i) => i.type.startsWith('system:attachment'))).toBe(false);
    expect(built.value.file.types).toEqual([
      'message',
      'thinking',
      'notice',
      'system',
      'hook',
      'tool',
      '-system:attachment',
    ]);
    const c = classifyTranscript(t);
    if (!c.ok) throw new Error(c.error.message);
    const notAttachments = c.value.items.filter((i) => !i.type.startsWith('system:attachment:'));
    expect(built.value.file.items.map((i) => i.uuid)).toEqual(notAttachments.map((i) => i.uuid));
    // Hook runs recorded only as started are kept, under their event's type.
    const started = built.value.file.items.filter((i) => (i as { status?: string }).status === 'started');
    expect(started.length).toBeGreaterThan(100);
    for (const h of started) expect(h.type).toMatch(/^hook:[A-Za-z]+$/);
    expect(built.value.file.items.some((i) => i.type === 'hook:started')).toBe(false);
  });

  it('answers a subagent, a record or a preset that names nothing not_found, naming the argument', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ agent_id: 'no-such-agent' }, 'agent_id'],
      [{ agent_id: '' }, 'agent_id'],
      [{ since_uuid: '' }, 'since_uuid'],
      [{ until_uuid: 'no-such-record' }, 'until_uuid'],
      [{ preset: 'no such preset' }, 'preset'],
      [{ types: ['@nosuch'] }, 'types'],
    ];
    for (const [args, field] of cases) {
      const built = buildDump(t, { sid: SID, ...args }, { presets: BUILTIN_PRESETS, writtenAt: now });
      expect(built.ok, JSON.stringify(args)).toBe(false);
      if (!built.ok) expect(built.error).toMatchObject({ code: 'not_found', field });
    }
  });
});

describe('Markdown escaping', () => {
  it('fences text longer than any backtick run inside it, so it cannot close its block', () => {
    const hostile = 'a ``` b\n````\n# heading\n<script>alert(1)</script>';
    const block = fenced(hostile);
    expect(block.startsWith('`````\n')).toBe(true);
    expect(block.endsWith('\n`````')).toBe(true);
    expect(codeSpan('x ` y')).toBe('``x ` y``');
    expect(codeSpan('line\n# not a heading')).toBe('`line # not a heading`');
  });

  it('keeps transcript text inside its blocks in a rendered dump', () => {
    const file: SessionDumpFileType = {
      sid: 's1',
      written_at: 0,
      types: ['message'],
      items: [{ uuid: 'u1', type: 'message:user:in', at: 0, text: '```\n## Ids\n| injected |' } as never],
      ids: [{ kind: 'agent', id: 'a|b', label: 'x`|`y' }],
    };
    const md = renderDumpMarkdown(file);
    const lines = md.split('\n');
    expect(lines.filter((l) => l === '## Ids')).toHaveLength(2);
    const fence = md.indexOf('````text');
    expect(fence).toBeGreaterThan(-1);
    expect(md.indexOf('## Ids')).toBeGreaterThan(fence);
    expect(md).toContain('a\\|b');
  });
});

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
