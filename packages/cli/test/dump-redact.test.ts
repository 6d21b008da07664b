// `cairn dump` redacts secrets by default: a corpus session, copied into a fresh agent home with
// made-up keys planted in its first prompt and in a command's output, is dumped with and without
// redaction.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SessionDumpFile, SessionDumpWriteResult, validate } from '@cairn/protocol';
import { describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { homeEnv, tempHome } from '../../transcript/test/homes.js';
import { cairn } from './run.js';

const SID = '4d5611e5-241a-462a-8d15-5122611a9569';
const PROJECT = '-work-spotter';
// Shapes of real keys, never real ones.
const GITHUB = `ghp_${'Zq7Lm2Xw9Rt4Yp8Kd3Vb6Nc1Hf5Js0Ga'.slice(0, 32)}Q2w4`;
const AWS = 'AKIAZ3MSJV4WWNKWW5FF';
const PASSWORD = 'Pq9-zX2!vLm7';

function plantedHome(): NodeJS.ProcessEnv {
  const home = tempHome();
  const folder = join(home, '.claude', 'projects', PROJECT);
  mkdirSync(folder, { recursive: true });
  const source = corpusPath('claude', 'projects', PROJECT);
  cpSync(join(source, SID), join(folder, SID), { recursive: true });
  const lines = readFileSync(join(source, `${SID}.jsonl`), 'utf8').split('\n');
  const prompt = lines.findIndex((l) => l.includes('"content":"Work on bead spotter-dov.'));
  const output = lines.findIndex((l) => l.includes('"tool_result"'));
  if (prompt < 0 || output < 0)
    throw new Error('the corpus session no longer has the lines this test plants in');
  lines[prompt] = lines[prompt]!.replace(
    'Work on bead spotter-dov.',
    `Work on bead spotter-dov. Push with ${GITHUB} and export AWS_ACCESS_KEY_ID=${AWS}.`,
  );
  lines[output] = lines[output]!.replace('"content":"', `"content":"DB_PASSWORD=${PASSWORD}\\n`);
  writeFileSync(join(folder, `${SID}.jsonl`), lines.join('\n'));
  const env = homeEnv(home);
  return { PATH: process.env.PATH, ...env, CAIRN_HOME: join(home, '.cairn') };
}

describe.skipIf(!corpus)('cairn dump redaction', () => {
  const env = plantedHome();

  it('replaces each secret by a marker naming its kind, and says what it replaced', () => {
    const r = cairn(['dump', SID, '--json'], env);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const reply = JSON.parse(r.stdout);
    expect(validate(SessionDumpWriteResult, reply).ok).toBe(true);
    expect(reply.redacted).toEqual({ 'GitHub token': 1, 'AWS access key': 1, password: 1 });
    const text = readFileSync(reply.path, 'utf8');
    expect(validate(SessionDumpFile, JSON.parse(text)).ok).toBe(true);
    for (const secret of [GITHUB, AWS, PASSWORD]) expect(text).not.toContain(secret);
    expect(text).toContain(
      'Push with ⟨redacted: GitHub token⟩ and export AWS_ACCESS_KEY_ID=⟨redacted: AWS access key⟩.',
    );
    expect(text).toContain('DB_PASSWORD=⟨redacted: password⟩');

    const plain = cairn(['dump', SID, '--format', 'md'], env);
    expect(plain.status).toBe(0);
    expect(plain.stdout).toContain('redacted 3 secrets: 1 AWS access key, 1 GitHub token, 1 password');
    const md = readFileSync(plain.stdout.split('\n')[0]!.replace(/^wrote (.*) \(.*$/, '$1'), 'utf8');
    for (const secret of [GITHUB, AWS, PASSWORD]) expect(md).not.toContain(secret);
    expect(md).toContain('⟨redacted: GitHub token⟩');
  });

  it('writes the session as it is with --no-redact, the same items either way', () => {
    const redacted = JSON.parse(cairn(['dump', SID, '--json'], env).stdout);
    const r = cairn(['dump', SID, '--no-redact', '--json'], env);
    expect(r.status).toBe(0);
    const reply = JSON.parse(r.stdout);
    expect(reply.redacted).toBeUndefined();
    expect(reply.entries).toEqual(redacted.entries);
    const text = readFileSync(reply.path, 'utf8');
    for (const secret of [GITHUB, AWS, PASSWORD]) expect(text).toContain(secret);
    const said = cairn(['dump', SID, '--no-redact'], env);
    expect(said.stdout).toContain('not redacted: secrets are written as the session holds them');
  });
});

describe.skipIf(!corpus)('cairn export', () => {
  const env = plantedHome();

  it('writes every item of the session, attachments included, redacted', () => {
    const dumped = JSON.parse(cairn(['dump', SID, '--json'], env).stdout);
    const out = join(env.HOME!, 'export.json');
    const r = cairn(['export', SID, '--format', 'json', '--out', out], env);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`wrote ${out}`);
    expect(r.stdout).toContain('redacted 3 secrets');
    const file = JSON.parse(readFileSync(out, 'utf8'));
    expect(validate(SessionDumpFile, file).ok).toBe(true);
    const every = JSON.parse(
      cairn(['dump', SID, '--types', 'message,thinking,notice,system,hook,tool', '--json'], env).stdout,
    );
    expect(
      JSON.parse(cairn(['export', SID, '--format', 'json', '--out', out, '--json'], env).stdout).entries,
    ).toEqual(every.entries);
    const dumpedTotal = Object.values(dumped.entries as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(file.items.length).toBeGreaterThanOrEqual(dumpedTotal);
    expect(file.types).toEqual(['message', 'thinking', 'notice', 'system', 'hook', 'tool']);
    const text = readFileSync(out, 'utf8');
    for (const secret of [GITHUB, AWS, PASSWORD]) expect(text).not.toContain(secret);
  });

  it('writes Markdown, and refuses a format it does not write', () => {
    const out = join(env.HOME!, 'export.md');
    const r = cairn(['export', SID, '--format', 'md', '--out', out, '--no-redact'], env);
    expect(r.status).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain(GITHUB);
    const bad = cairn(['export', SID, '--format', 'pdf'], env);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("bad --format 'pdf'");
    expect(cairn(['export', SID], env).status).toBe(2);
  });
});
