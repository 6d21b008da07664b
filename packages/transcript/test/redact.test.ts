// The redactor measured on a labelled set: secrets of real shapes (made up here from a seeded
// random, never real keys) set in the sentences a transcript holds them in, and near-misses a
// transcript is full of (hashes, uuids, base64 images, git SHAs, identifiers named like secrets).
import { describe, expect, it } from 'vitest';
import { BUILTIN_PRESETS, buildDump, listSessions, loadTranscript } from '../src/index.js';
import {
  describeRedactions,
  findSecrets,
  redactText,
  redactTexts,
  redactValue,
} from '../src/redact/redact.js';
import { corpus } from './corpus.js';
import { corpusPlatform } from './homes.js';
import { ALNUM, nearMisses, pick, secrets, UPPER_NUM } from './redact-labelled.js';

describe('the redactor on a labelled set', () => {
  it('finds the secrets and leaves the near-misses alone, within stated bounds', async () => {
    const labelled = secrets();
    const misses = nearMisses();
    const r = await redactTexts([...labelled.map((s) => s.text), ...misses]);
    const leaked = labelled.filter((s, i) => (r.texts[i] ?? '').includes(s.secret));
    const recall = 1 - leaked.length / labelled.length;
    const flagged = misses.filter((m, i) => r.texts[labelled.length + i] !== m);
    const falsePositiveRate = flagged.length / misses.length;
    process.stdout.write(
      `redactor: recall ${(recall * 100).toFixed(1)}% over ${labelled.length} secrets, ` +
        `false positives ${(falsePositiveRate * 100).toFixed(1)}% over ${misses.length} near-misses\n` +
        `  redacted: ${describeRedactions(r.counts)}\n`,
    );
    for (const s of leaked) process.stdout.write(`  leaked: ${s.text.slice(0, 100)}\n`);
    for (const m of flagged) process.stdout.write(`  flagged: ${m.slice(0, 100)}\n`);
    expect(recall).toBeGreaterThanOrEqual(0.98);
    expect(falsePositiveRate).toBeLessThanOrEqual(0.01);
  });

  it('names the kind in the marker and keeps the text around it', async () => {
    const key = `ghp_${pick(ALNUM, 36)}`;
    const r = await redactText(`push with ${key} then stop`);
    expect(r.text).toBe('push with ⟨redacted: GitHub token⟩ then stop');
    expect(r.counts).toEqual({ 'GitHub token': 1 });
  });

  it('redacts only the password of a URL credential', async () => {
    const r = await redactText('psql postgres://app:Xy7kq2LmPw@db.local:5432/app');
    expect(r.text).toBe('psql postgres://app:⟨redacted: database password⟩@db.local:5432/app');
  });

  it('copies only what changed and never alters the value it was given', async () => {
    const key = `AKIA${pick(UPPER_NUM, 16)}`;
    const item = {
      type: 'tool:Bash',
      input: { command: `export AWS_ACCESS_KEY_ID=${key}` },
      other: { a: 'plain' },
    };
    const before = JSON.stringify(item);
    const r = await redactValue(item);
    expect(JSON.stringify(item)).toBe(before);
    expect(r.value.input.command).toBe('export AWS_ACCESS_KEY_ID=⟨redacted: AWS access key⟩');
    expect(r.value.other).toBe(item.other);
    expect(r.counts).toEqual({ 'AWS access key': 1 });
  });

  it('answers the same value when there is nothing to redact', async () => {
    const item = { text: 'nothing secret here, just a long enough sentence' };
    const r = await redactValue(item);
    expect(r.value).toBe(item);
    expect(r.counts).toEqual({});
  });
});

describe.skipIf(!corpus)('the redactor on real sessions', () => {
  it('finds nothing to redact in any corpus session, which holds no secrets', async () => {
    const platform = corpusPlatform();
    let sessions = 0;
    let chars = 0;
    for await (const e of listSessions(platform)) {
      if ('ref' in e) continue;
      const loaded = await loadTranscript(platform, { agent: e.agent, path: e.path });
      if (!loaded.ok) throw new Error(loaded.error.message);
      const built = buildDump(
        loaded.value,
        { sid: e.id, types: ['message', 'thinking', 'tool', 'attachment'] },
        { presets: BUILTIN_PRESETS, writtenAt: 0 },
      );
      if (!built.ok) throw new Error(built.error.message);
      const content = JSON.stringify(built.value.file.items);
      const found = await findSecrets(content);
      const shown = found.map((s) => `${s.kind}: ${content.slice(Math.max(0, s.start - 30), s.end + 10)}`);
      expect(shown, `${e.agent} ${e.id}`).toEqual([]);
      sessions++;
      chars += content.length;
    }
    process.stdout.write(
      `redactor: no false positives over ${sessions} corpus sessions, ${chars} characters\n`,
    );
    expect(sessions).toBeGreaterThan(5);
  }, 120_000);
});

describe('the redactor over many strings', () => {
  it('counts a secret met in several strings once per string, each string redacted', async () => {
    const key = `ghp_${pick(ALNUM, 36)}`;
    const r = await redactTexts([`a ${key}`, 'f1e2d3c4-0000-4000-8000-123456789abc', `a ${key}`, 'short']);
    expect(r.texts).toEqual([
      'a ⟨redacted: GitHub token⟩',
      'f1e2d3c4-0000-4000-8000-123456789abc',
      'a ⟨redacted: GitHub token⟩',
      'short',
    ]);
    expect(r.counts).toEqual({ 'GitHub token': 2 });
  });
});
