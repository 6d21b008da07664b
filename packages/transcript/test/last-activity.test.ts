// A session's last activity is the time of its last record, in whole milliseconds, whatever the
// files' modification times say (a copy, a restore); the modification time stands in only when
// no record carries a time.
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ListEntry, listSessions, type SessionHead } from '../src/index.js';
import { corpus, corpusPath } from './corpus.js';
import { tempHome, tempPlatform } from './homes.js';

async function headsOf(home: string): Promise<SessionHead[]> {
  const out: ListEntry[] = [];
  for await (const e of listSessions(tempPlatform(home))) out.push(e);
  return out.filter((e): e is SessionHead => !('ref' in e));
}

/** The last line of a JSONL file with a top-level timestamp, as ms. */
const lastLineTime = (path: string): number =>
  Date.parse(
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { timestamp?: string })
      .findLast((r) => typeof r.timestamp === 'string')!.timestamp!,
  );

/** A fractional modification time, as a fresh copy would have. */
const FRACTIONAL_SECONDS = 1_800_000_000.123456;

describe.skipIf(!corpus)('last activity from the records', () => {
  it('is the last record time of every agent, not the time the files were copied', async () => {
    const home = tempHome();
    cpSync(corpusPath('claude'), join(home, '.claude'), { recursive: true });
    cpSync(corpusPath('codex'), join(home, '.codex'), { recursive: true });
    cpSync(corpusPath('gemini'), join(home, '.gemini'), { recursive: true });
    const copiedAt = Date.now() - 60_000;
    const found = await headsOf(home);
    expect(found.length).toBe(11);
    for (const h of found) {
      expect(Number.isInteger(h.lastActivityAt), h.path).toBe(true);
      // Every corpus session ended long before it was copied here.
      expect(h.lastActivityAt!, h.path).toBeLessThan(copiedAt);
      if (h.agent === 'gemini-cli') {
        const doc = JSON.parse(readFileSync(h.path, 'utf8'));
        expect(h.lastActivityAt).toBe(Date.parse(doc.messages.at(-1).timestamp));
      } else expect(h.lastActivityAt, h.path).toBe(Math.max(...h.files.map(lastLineTime)));
    }
  });

  it('passes over a torn last line, and reaches past a last record longer than the tail read first', async () => {
    const home = tempHome();
    const day = join(home, '.codex', 'sessions', '2025', '10', '21');
    mkdirSync(day, { recursive: true });
    const name = readdirSync(corpusPath('codex', 'sessions', '2025', '10', '21'))[0]!;
    const path = join(day, name);
    cpSync(corpusPath('codex', 'sessions', '2025', '10', '21', name), path);
    const before = lastLineTime(path);
    appendFileSync(path, '{"timestamp":"2030-01-01T00:00:00.000Z","type":"event_msg","payl');
    expect((await headsOf(home))[0]!.lastActivityAt).toBe(before);
    writeFileSync(path, readFileSync(corpusPath('codex', 'sessions', '2025', '10', '21', name)));
    const long = {
      timestamp: '2026-03-01T10:00:00.250Z',
      type: 'event_msg',
      payload: { type: 'agent_message', message: 'x'.repeat(300_000) },
    };
    appendFileSync(path, `${JSON.stringify(long)}\n`);
    expect((await headsOf(home))[0]!.lastActivityAt).toBe(Date.parse(long.timestamp));
  });

  it('reads the end of a compressed rollout through its decompressed stream', async () => {
    const home = tempHome();
    const day = join(home, '.codex', 'sessions', '2026', '02', '23');
    mkdirSync(day, { recursive: true });
    const name = readdirSync(corpusPath('codex', 'sessions', '2026', '02', '23')).sort()[1]!;
    const plain = corpusPath('codex', 'sessions', '2026', '02', '23', name);
    execFileSync('zstd', ['-q', '-3', plain, '-o', join(day, `${name}.zst`)]);
    const [head] = await headsOf(home);
    expect(head).toMatchObject({ path: join(day, `${name}.zst`), lastActivityAt: lastLineTime(plain) });
  });

  it("is a Gemini CLI JSONL session's last message or metadata update", async () => {
    const home = tempHome();
    const chats = join(home, '.gemini', 'tmp', 'p', 'chats');
    mkdirSync(chats, { recursive: true });
    const source = corpusPath('more', 'gemini', 'jsonl_v040.jsonl');
    cpSync(source, join(chats, 'session-2026-04-29T21-39-gemini_s.jsonl'));
    const last = readFileSync(source, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { timestamp?: string; $set?: { lastUpdated?: string } })
      .map((r) => r.timestamp ?? r.$set?.lastUpdated)
      .findLast((t) => t !== undefined)!;
    const [head] = await headsOf(home);
    expect(head?.lastActivityAt).toBe(Date.parse(last));
  });

  it('falls back to the modification time, truncated to whole ms, when no record has a time', async () => {
    const home = tempHome();
    const project = join(home, '.claude', 'projects', '-src');
    mkdirSync(project, { recursive: true });
    const path = join(project, 's.jsonl');
    writeFileSync(
      path,
      `${JSON.stringify({ type: 'user', sessionId: 's', uuid: 'u1', message: { role: 'user', content: 'hello' } })}\n`,
    );
    utimesSync(path, FRACTIONAL_SECONDS, FRACTIONAL_SECONDS);
    const [head] = await headsOf(home);
    expect(head!.lastActivityAt).toBe(Math.floor(FRACTIONAL_SECONDS * 1000));
  });
});
