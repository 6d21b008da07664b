// Bad input in a temporary home: every case gives skipped records or a failure value, nothing
// throws, and the rest of the session is intact.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  listSessions,
  loadTranscript,
  readOriginal,
  type SessionHead,
  type Transcript,
} from '../src/index.js';
import { corpus, corpusPath } from './corpus.js';
import { tempHome, tempPlatform } from './homes.js';

const SOURCE = corpusPath('claude/projects/-work-spotter/short.jsonl');

describe.skipIf(!corpus)('bad input', () => {
  const home = tempHome();
  const platform = tempPlatform(home);
  const project = join(home, '.claude/projects/-tmp-bad');
  const file = (name: string) => join(project, `${name}.jsonl`);
  let clean: Transcript;
  let original: Buffer;

  const withExtra = (name: string, extra: Buffer | string, where: 'middle' | 'end') => {
    const lines = original.toString('utf8').split('\n');
    const at = where === 'end' ? original.length : Buffer.byteLength(`${lines.slice(0, 3).join('\n')}\n`);
    writeFileSync(
      file(name),
      Buffer.concat([original.subarray(0, at), Buffer.from(extra), original.subarray(at)]),
    );
  };

  beforeAll(async () => {
    mkdirSync(project, { recursive: true });
    original = readFileSync(SOURCE);
    copyFileSync(SOURCE, file('clean'));
    withExtra('truncated', '{"type":"user","message":{"role":"user","content":"cut off', 'end');
    withExtra('invalid-json', '{"type": "user", oops}\n', 'middle');
    withExtra('invalid-utf8', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]), 'middle');
    withExtra('nul-bytes', Buffer.from('{"type":"user"\u0000\u0000}\n'), 'middle');
    withExtra('huge-line', `{"type":"mystery","blob":"${'x'.repeat(50 * 1024 * 1024)}"}\n`, 'middle');
    writeFileSync(file('empty'), '');
    mkdirSync(file('directory-named-like-a-session'));
    const loaded = await loadTranscript(platform, { path: file('clean') });
    if (!loaded.ok) throw new Error(loaded.error.message);
    clean = loaded.value;
  });

  const load = async (name: string) => {
    const r = await loadTranscript(platform, { path: file(name), agent: 'claude-code' });
    if (!r.ok) throw new Error(`${name}: ${r.error.message}`);
    return r.value;
  };
  const kinds = (t: Transcript) => t.events.map((e) => `${e.kind}:${e.id}`);

  it.each([
    ['truncated', 'truncated line'],
    ['invalid-json', 'invalid JSON'],
    ['invalid-utf8', 'invalid UTF-8'],
    ['nul-bytes', 'NUL bytes'],
  ])('skips the %s line with its reason and keeps every other event', async (name, reason) => {
    const t = await load(name);
    expect(t.skipped.map((s) => s.reason)).toContain(reason);
    expect(kinds(t)).toEqual(kinds(clean));
  });

  it('reads a single 50 MB line as an unknown record between the intact events', async () => {
    const t = await load('huge-line');
    const unknown = t.events.filter((e) => e.kind === 'unknown');
    expect(unknown).toHaveLength(1);
    expect(unknown[0]!.source.length).toBeGreaterThan(50 * 1024 * 1024);
    expect(kinds(t).filter((k) => !k.startsWith('unknown:'))).toEqual(kinds(clean));
  });

  it('answers SourceChanged when the bytes under a pointer are no longer that record', async () => {
    copyFileSync(SOURCE, file('edited'));
    const t = await load('edited');
    const pointer = t.events.at(-1)!.source;
    expect((await readOriginal(platform, pointer)).ok).toBe(true);
    // An edit earlier in the file shifts every later line.
    writeFileSync(file('edited'), Buffer.concat([Buffer.from('{"type":"note"}\n'), original]));
    const back = await readOriginal(platform, pointer);
    expect(!back.ok && back.error._tag).toBe('SourceChanged');
    writeFileSync(file('edited'), original.subarray(0, pointer.offset));
    const cut = await readOriginal(platform, pointer);
    expect(!cut.ok && cut.error._tag).toBe('SourceChanged');
  });

  it('loads an empty file as a session with no events', async () => {
    const t = await load('empty');
    expect(t.events).toEqual([]);
  });

  it('refuses a directory named like a session with ReadFailed', async () => {
    const r = await loadTranscript(platform, { path: file('directory-named-like-a-session') });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error._tag).toBe('ReadFailed');
  });

  it('answers a missing file with SessionNotFound and an unknown agent with CapabilityUnsupported', async () => {
    const missing = await loadTranscript(platform, { path: file('nope') });
    expect(!missing.ok && missing.error._tag).toBe('SessionNotFound');
    const agent = await loadTranscript(platform, { path: file('clean'), agent: 'no-such-agent' });
    expect(!agent.ok && agent.error._tag).toBe('CapabilityUnsupported');
    const text = join(home, 'notes.txt');
    writeFileSync(text, 'just some notes\n');
    const nobody = await loadTranscript(platform, { path: text });
    expect(!nobody.ok && nobody.error._tag).toBe('NoAdapterAccepted');
  });

  it('lists every readable session around the bad ones without throwing', async () => {
    const heads: SessionHead[] = [];
    for await (const entry of listSessions(platform)) if (!('ref' in entry)) heads.push(entry);
    const names = heads.map((h) => h.path.split('/').pop());
    for (const name of ['clean', 'truncated', 'invalid-json', 'invalid-utf8', 'nul-bytes', 'huge-line']) {
      expect(names).toContain(`${name}.jsonl`);
    }
    expect(heads.find((h) => h.path === file('huge-line'))?.size).toBeGreaterThan(50 * 1024 * 1024);
  });

  it('reports an unreadable file as a listing failure and lists the rest', () => {
    const locked = join(home, 'locked');
    const lockedProject = join(locked, '.claude/projects/-tmp-locked');
    mkdirSync(lockedProject, { recursive: true });
    copyFileSync(SOURCE, join(lockedProject, 'readable.jsonl'));
    copyFileSync(SOURCE, join(lockedProject, 'secret.jsonl'));
    chmodSync(join(lockedProject, 'secret.jsonl'), 0o000);
    chmodSync(home, 0o755);
    // Root reads any file, so the listing runs as an unprivileged user when the tests run as root.
    const script = `
      import { listSessions, nodePlatform } from '${fileURLToPath(new URL('../dist/index.js', import.meta.url))}';
      const out = { heads: [], errors: [] };
      const platform = nodePlatform({ homeDir: '${locked}', env: { CLAUDE_CONFIG_DIR: '${join(locked, '.claude')}' } });
      for await (const e of listSessions(platform, { agent: 'claude' })) {
        if ('ref' in e) out.errors.push(e); else out.heads.push(e.path);
      }
      console.log(JSON.stringify(out));`;
    const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const stdout = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      ...asNobody,
      encoding: 'utf8',
    });
    const out = JSON.parse(stdout) as { heads: string[]; errors: { ref: string; error: { _tag: string } }[] };
    expect(out.heads).toEqual([join(lockedProject, 'readable.jsonl')]);
    expect(out.errors).toEqual([
      expect.objectContaining({
        ref: join(lockedProject, 'secret.jsonl'),
        error: expect.objectContaining({ _tag: 'ReadFailed' }),
      }),
    ]);
  });
});
