// Finding Codex sessions: homes, listing, detection and a session's files.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ListEntry, ListFailure } from '../../src/adapter.js';
import { codexAdapter } from '../../src/adapters/codex/index.js';
import type { SessionHead } from '../../src/model.js';
import { nodePlatform } from '../../src/platform-node.js';
import { adapterContext } from '../../src/read.js';
import { corpus } from '../corpus.js';
import { tempHome } from '../homes.js';
import { codexHome, load, rollout, rollouts } from './codex-corpus.js';

async function listAll(home: string): Promise<ListEntry[]> {
  const ctx = adapterContext(nodePlatform({ homeDir: home, env: {} }));
  const out: ListEntry[] = [];
  for await (const e of codexAdapter.list(ctx, home)) out.push(e);
  return out;
}
const heads = (entries: ListEntry[]) => entries.filter((e): e is SessionHead => !('ref' in e));
const failures = (entries: ListEntry[]) => entries.filter((e): e is ListFailure => 'ref' in e);

describe('Codex homes', () => {
  it('is $CODEX_HOME when set, else ~/.codex', () => {
    const join = (...p: string[]) => p.join('/');
    expect(codexAdapter.homes({ env: { CODEX_HOME: '/data/codex' }, homeDir: '/home/u', join })).toEqual([
      '/data/codex',
    ]);
    expect(codexAdapter.homes({ env: {}, homeDir: '/home/u', join })).toEqual(['/home/u/.codex']);
    expect(codexAdapter.homes({ env: { CODEX_HOME: '' }, homeDir: '/home/u', join })).toEqual([
      '/home/u/.codex',
    ]);
  });
});

describe.skipIf(!corpus)('listing the corpus', () => {
  it('gives one head per rollout with its id, folder, first prompt, start, size and activity', async () => {
    const entries = await listAll(codexHome);
    expect(failures(entries)).toEqual([]);
    const found = heads(entries);
    expect(found.map((h) => h.path).sort()).toEqual(rollouts);
    for (const h of found) {
      const t = load(h.path);
      const stat = statSync(h.path);
      expect(h).toMatchObject({
        agent: 'codex',
        id: t.session.id,
        files: [h.path],
        cwd: t.session.cwd,
        startedAt: t.session.startedAt,
        size: stat.size,
        // The last record's time, not when the file was written or copied.
        lastActivityAt: Date.parse(
          readFileSync(h.path, 'utf8')
            .split('\n')
            .filter((l) => l !== '')
            .map((l) => JSON.parse(l) as { timestamp?: string })
            .findLast((r) => r.timestamp !== undefined)!.timestamp!,
        ),
      });
      const first = t.events.find((e) => e.kind === 'user' && !e.payload.synthetic);
      expect(h.firstPrompt).toBe(first?.kind === 'user' ? first.payload.text : undefined);
    }
    const cli = found.find((h) => h.path === rollout('2025-10-21'))!;
    expect(cli.id).toBe('019a085e-04c1-7f81-a09e-9555f6a1fb40');
    expect(cli.cwd).toBe('/Users/yoavfarhi/dev/pomodoro/codex');
    // The environment context injected before it is not the first prompt.
    expect(cli.firstPrompt).toMatch(/^Build a simple Pomodoro timer web app/);
  });

  it('detects rollouts by name or by their first record, and nothing else', () => {
    for (const path of rollouts) {
      const head = readFileSync(path).subarray(0, 4096);
      expect(codexAdapter.detect(path, head)).toBe(true);
      expect(codexAdapter.detect('/x/session.jsonl', head)).toBe(true);
    }
    const enc = new TextEncoder();
    expect(codexAdapter.detect('/x/a.jsonl', enc.encode('{"type":"user","uuid":"u1","message":{}}\n'))).toBe(
      false,
    );
    expect(codexAdapter.detect('/x/a.json', enc.encode('{"sessionId":"s","messages":[]}'))).toBe(false);
    expect(codexAdapter.detect('/x/rollout-2026-01-01T00-00-00-x.jsonl.zst', new Uint8Array())).toBe(true);
  });

  it('names a rollout as its own only file, and a missing one as not found', async () => {
    const ctx = adapterContext(nodePlatform());
    const path = rollout('12-41-04');
    expect(await codexAdapter.sessionFiles(ctx, path)).toEqual({ ok: true, value: [path] });
    const missing = await codexAdapter.sessionFiles(ctx, `${path}.gone`);
    expect(missing).toMatchObject({ ok: false, error: { _tag: 'SessionNotFound', path: `${path}.gone` } });
  });
});

describe.skipIf(!corpus)('listing a home with compressed, archived and broken rollouts', () => {
  const home = tempHome();
  const codex = join(home, '.codex');
  const day = join(codex, 'sessions/2026/02/23');
  const archived = join(codex, 'archived_sessions');
  mkdirSync(day, { recursive: true });
  mkdirSync(archived, { recursive: true });
  const a = rollout('12-41-04');
  const b = rollout('13-19-38');
  const c = rollout('2025-10-21');
  // A: plain and compressed side by side, and an archived copy: the plain live one wins.
  copyFileSync(a, join(day, basename(a)));
  execFileSync('zstd', ['-q', '-3', a, '-o', join(day, `${basename(a)}.zst`)]);
  copyFileSync(a, join(archived, basename(a)));
  // B: compressed only.
  execFileSync('zstd', ['-q', '-3', b, '-o', join(day, `${basename(b)}.zst`)]);
  // C: archived only, with a title set early in the session.
  const titled = readFileSync(c, 'utf8').split('\n');
  titled.splice(
    3,
    0,
    JSON.stringify({
      timestamp: '2025-10-21T20:04:19.139Z',
      type: 'event_msg',
      payload: { type: 'thread_name_updated', thread_id: 'x', thread_name: 'Pomodoro app' },
    }),
  );
  writeFileSync(join(archived, basename(c)), titled.join('\n'));
  // Not rollouts, or not Codex.
  writeFileSync(join(day, 'notes.txt'), 'hello');
  writeFileSync(join(day, 'rollout-2026-02-23T14-00-00-bad.jsonl'), '{"hello":"world"}\n');

  it('prefers plain over compressed and live over archived, and reports a broken file', async () => {
    const entries = await listAll(codex);
    const found = heads(entries);
    expect(found.map((h) => h.path)).toEqual([
      join(day, basename(a)),
      join(day, `${basename(b)}.zst`),
      join(archived, basename(c)),
    ]);
    const compressed = found[1]!;
    expect(compressed.id).toBe('019c8a70-dda7-7f33-98ea-f30553347322');
    expect(compressed.firstPrompt).toBe('[REDACTED_TEXT len=86 sha=2239bcba]');
    expect(compressed.size).toBe(statSync(join(day, `${basename(b)}.zst`)).size);
    expect(found[2]).toMatchObject({ id: '019a085e-04c1-7f81-a09e-9555f6a1fb40', title: 'Pomodoro app' });
    expect(failures(entries)).toEqual([
      {
        ref: join(day, 'rollout-2026-02-23T14-00-00-bad.jsonl'),
        error: expect.objectContaining({ _tag: 'UnknownFormatGeneration', line: 1 }),
      },
    ]);
  });

  it('lists nothing for a home without sessions', async () => {
    expect(await listAll(join(home, 'nowhere'))).toEqual([]);
  });
});
