// The Gemini CLI adapter's homes, listing, detection and session files, on the corpus (through
// a temporary home whose .gemini is the corpus folder) and on a temporary home the test fills.
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AdapterContext, ListEntry } from '../../src/adapter.js';
import { geminiCliAdapter } from '../../src/adapters/gemini-cli/index.js';
import type { SessionHead } from '../../src/model.js';
import { nodePlatform } from '../../src/platform-node.js';
import { adapterContext, HEAD_BYTES } from '../../src/read.js';
import { corpus, corpusPath } from '../corpus.js';
import { watchedPlatform } from '../homes.js';

const tempHome = (): string => mkdtempSync(join(tmpdir(), 'cairn-gemini-'));

async function listAll(ctx: AdapterContext, home: string): Promise<ListEntry[]> {
  const out: ListEntry[] = [];
  for await (const entry of geminiCliAdapter.list(ctx, home)) out.push(entry);
  return out;
}

/** A platform whose whole-file reads are counted, to show that listing only reads heads. */
const countingPlatform = (home: string) =>
  watchedPlatform(nodePlatform({ homeDir: home, env: { HOME: home, GEMINI_CLI_HOME: home } }));

describe('gemini-cli homes', () => {
  const join2 = (...p: string[]) => p.join('/');
  it('uses $GEMINI_CLI_HOME in place of the home folder, else the home folder', () => {
    expect(geminiCliAdapter.homes({ env: { GEMINI_CLI_HOME: '/g' }, homeDir: '/u', join: join2 })).toEqual([
      '/g/.gemini',
    ]);
    expect(geminiCliAdapter.homes({ env: {}, homeDir: '/u', join: join2 })).toEqual(['/u/.gemini']);
    expect(geminiCliAdapter.homes({ env: { GEMINI_CLI_HOME: '' }, homeDir: '/u', join: join2 })).toEqual([
      '/u/.gemini',
    ]);
  });
});

describe.skipIf(!corpus)('gemini-cli listing of the corpus', () => {
  const home = tempHome();
  symlinkSync(corpusPath('gemini'), join(home, '.gemini'));
  const { platform, wholeReads } = countingPlatform(home);
  const ctx = adapterContext(platform);
  const [geminiHome] = geminiCliAdapter.homes(platform);

  it('finds the one legacy session, with its head read from the first bytes only', async () => {
    const entries = await listAll(ctx, geminiHome!);
    expect(entries).toHaveLength(1);
    const head = entries[0] as SessionHead;
    const project = readdirSync(corpusPath('gemini', 'tmp'))[0]!;
    const path = join(geminiHome!, 'tmp', project, 'chats', 'session-2025-10-21T20-04-0b23371a.json');
    const doc = JSON.parse(readFileSync(path, 'utf8'));
    const stat = statSync(path);
    expect(head).toEqual({
      agent: 'gemini-cli',
      id: doc.sessionId,
      path,
      files: [path],
      firstPrompt: doc.messages[0].content,
      startedAt: Date.parse(doc.startTime),
      // The last message's time, not when the file was written or copied.
      lastActivityAt: Date.parse(doc.messages[doc.messages.length - 1].timestamp),
      size: stat.size,
    });
    expect(wholeReads).toEqual([]);
  });

  it('detects the corpus files as Gemini sessions and other agents’ files as not', () => {
    const head = (p: string) => new Uint8Array(readFileSync(p)).subarray(0, HEAD_BYTES);
    const project = readdirSync(corpusPath('gemini', 'tmp'))[0]!;
    const legacy = corpusPath('gemini', 'tmp', project, 'chats', 'session-2025-10-21T20-04-0b23371a.json');
    for (const p of [
      legacy,
      ...['jsonl_v040.jsonl', 'small.json', 'large.json'].map((n) => corpusPath('more/gemini', n)),
    ]) {
      expect(geminiCliAdapter.detect(p, head(p)), p).toBe(true);
    }
    const claude = corpusPath('claude/projects/-work-spotter/short.jsonl');
    expect(geminiCliAdapter.detect(claude, head(claude))).toBe(false);
    const codexDir = corpusPath('codex/sessions/2025/10/21');
    const codex = join(codexDir, readdirSync(codexDir)[0]!);
    expect(geminiCliAdapter.detect(codex, head(codex))).toBe(false);
  });

  it('gives a legacy session its one file, and SessionNotFound for a missing one', async () => {
    const project = readdirSync(corpusPath('gemini', 'tmp'))[0]!;
    const path = corpusPath('gemini', 'tmp', project, 'chats', 'session-2025-10-21T20-04-0b23371a.json');
    expect(await geminiCliAdapter.sessionFiles(ctx, path)).toEqual({ ok: true, value: [path] });
    const missing = await geminiCliAdapter.sessionFiles(ctx, join(home, 'nope', 'session-x.jsonl'));
    expect(missing).toMatchObject({ ok: false, error: { _tag: 'SessionNotFound' } });
  });
});

describe('gemini-cli listing of a filled home', () => {
  const home = tempHome();
  const { platform, wholeReads } = countingPlatform(home);
  const ctx = adapterContext(platform);
  const gemini = join(home, '.gemini');
  const chats = join(gemini, 'tmp', 'my-app', 'chats');
  const otherChats = join(gemini, 'tmp', 'other', 'chats');
  const line = (r: unknown) => `${JSON.stringify(r)}\n`;
  const meta = (sessionId: string, extra: Record<string, unknown> = {}) => ({
    sessionId,
    projectHash: 'p',
    startTime: '2026-05-02T08:00:00.000Z',
    lastUpdated: '2026-05-02T08:00:00.000Z',
    ...extra,
  });
  const bigPrompt = 'x'.repeat(10);
  let entries: ListEntry[];

  beforeAll(async () => {
    mkdirSync(join(chats, 'sess-jsonl'), { recursive: true });
    mkdirSync(otherChats, { recursive: true });
    writeFileSync(join(gemini, 'tmp', 'my-app', '.project_root'), '/home/dev/my-app\n');
    writeFileSync(
      join(gemini, 'projects.json'),
      JSON.stringify({ projects: { '/elsewhere/other': 'other' } }),
    );
    // A JSONL session whose first typed prompt comes after injected context and a rewound prompt.
    writeFileSync(
      join(chats, 'session-2026-05-02T08-00-sess-jso.jsonl'),
      [
        meta('sess-jsonl'),
        {
          id: 'ctx',
          type: 'user',
          timestamp: '2026-05-02T08:00:01.000Z',
          content: [{ text: '<session_context>\nOS: linux' }],
        },
        { id: 'u0', type: 'user', timestamp: '2026-05-02T08:00:02.000Z', content: 'never mind' },
        { $rewindTo: 'u0' },
        {
          id: 'u1',
          type: 'user',
          timestamp: '2026-05-02T08:00:03.000Z',
          content: 'fix the bug',
          displayContent: 'fix the bug',
        },
        { $set: { summary: 'Fixing a bug' } },
      ]
        .map(line)
        .join(''),
    );
    writeFileSync(
      join(chats, 'sess-jsonl', 'sub-1.jsonl'),
      line({ ...meta('sub-1'), kind: 'subagent' }) + line({ id: 's1', type: 'user', content: 'look' }),
    );
    // A legacy document already migrated to JSONL: only the .jsonl is listed.
    writeFileSync(
      join(chats, 'session-2026-05-01T08-00-migrated.json'),
      JSON.stringify({ ...meta('m'), messages: [] }),
    );
    writeFileSync(join(chats, 'session-2026-05-01T08-00-migrated.jsonl'), line(meta('m')));
    // A legacy document far larger than the head: its fields and first prompt come from the head.
    const bigMessages = [
      { id: 'a', type: 'info', content: 'Logged in.' },
      { id: 'b', type: 'user', content: bigPrompt, timestamp: '2026-05-03T09:00:00.000Z' },
      ...Array.from({ length: 400 }, (_, i) => ({ id: `g${i}`, type: 'gemini', content: 'y'.repeat(1000) })),
    ];
    writeFileSync(
      join(otherChats, 'session-2026-05-03T09-00-big.json'),
      JSON.stringify(
        { sessionId: 'big', projectHash: 'p', messages: bigMessages, lastUpdated: 'x' },
        null,
        2,
      ),
    );
    // Valid JSON that is no conversation record, and a file that is no session file at all.
    writeFileSync(join(otherChats, 'session-2026-05-03T10-00-weird.json'), '[1, 2, 3]');
    writeFileSync(join(otherChats, 'notes.txt'), 'hello');
    entries = await listAll(ctx, gemini);
  });

  it('lists each session once, preferring a migrated .jsonl to its .json', () => {
    const heads = entries.filter((e): e is SessionHead => !('ref' in e));
    expect(heads.map((h) => h.id).sort()).toEqual(['big', 'm', 'sess-jsonl']);
  });

  it('reads a JSONL head: id, cwd from the project folder, title, the first typed prompt, subagent files', () => {
    const head = entries.find((e): e is SessionHead => !('ref' in e) && e.id === 'sess-jsonl')!;
    const main = join(chats, 'session-2026-05-02T08-00-sess-jso.jsonl');
    const sub = join(chats, 'sess-jsonl', 'sub-1.jsonl');
    expect(head).toMatchObject({
      path: main,
      files: [main, sub],
      cwd: '/home/dev/my-app',
      title: 'Fixing a bug',
      firstPrompt: 'fix the bug',
      startedAt: Date.parse('2026-05-02T08:00:00.000Z'),
      size: statSync(main).size + statSync(sub).size,
    });
  });

  it('reads a legacy document larger than the head from its first bytes, with the cwd from projects.json', () => {
    const path = join(otherChats, 'session-2026-05-03T09-00-big.json');
    expect(statSync(path).size).toBeGreaterThan(HEAD_BYTES);
    const head = entries.find((e): e is SessionHead => !('ref' in e) && e.id === 'big')!;
    expect(head).toMatchObject({
      path,
      cwd: '/elsewhere/other',
      firstPrompt: bigPrompt,
      size: statSync(path).size,
    });
    // The start comes from the first message, since this document records no startTime.
    expect(head.startedAt).toBe(Date.parse('2026-05-03T09:00:00.000Z'));
    expect(wholeReads).toEqual([]);
  });

  it('reports a file of an unknown format generation as a failure, and goes on', () => {
    const failures = entries.filter((e) => 'ref' in e);
    expect(failures).toEqual([
      {
        ref: join(otherChats, 'session-2026-05-03T10-00-weird.json'),
        error: expect.objectContaining({ _tag: 'UnknownFormatGeneration', line: 1 }),
      },
    ]);
  });

  it('gives a JSONL session its subagent files after the main file', async () => {
    const main = join(chats, 'session-2026-05-02T08-00-sess-jso.jsonl');
    expect(await geminiCliAdapter.sessionFiles(ctx, main)).toEqual({
      ok: true,
      value: [main, join(chats, 'sess-jsonl', 'sub-1.jsonl')],
    });
    expect(
      geminiCliAdapter.detect(
        join(chats, 'sess-jsonl', 'sub-1.jsonl'),
        readFileSync(join(chats, 'sess-jsonl', 'sub-1.jsonl')),
      ),
    ).toBe(true);
  });

  it('lists nothing, and fails nothing, for a home without a tmp folder', async () => {
    expect(await listAll(ctx, join(home, 'no-such-home'))).toEqual([]);
  });
});
