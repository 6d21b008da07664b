// `session_dump_write` redacts secrets by default and says which kinds it replaced; `redact: false`
// writes the session's text as it is. The session is a corpus one with made-up keys planted in it.
import { readFileSync, writeFileSync } from 'node:fs';
import { SessionDumpFile, validate, validateResponse } from '@cairn/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import type { RunningServer } from '../src/index.js';
import { Client, claudeSessionHome, homeEnv, serve } from './helpers.js';

// Shapes of real keys, never real ones.
const SLACK = 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx';
const STRIPE = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';

describe.skipIf(!corpus)('session_dump_write redaction', () => {
  let server: RunningServer;
  let client: Client;
  let sid: string;

  beforeAll(async () => {
    const { home, file, lines } = claudeSessionHome(Number.MAX_SAFE_INTEGER);
    const prompt = lines.findIndex((l) => l.includes('"role":"user","content":"'));
    if (prompt < 0) throw new Error('the corpus session no longer has a prompt to plant in');
    lines[prompt] = lines[prompt]!.replace(
      '"role":"user","content":"',
      `"role":"user","content":"post with SLACK_BOT_TOKEN=${SLACK} and charge with ${STRIPE}. `,
    );
    writeFileSync(file, `${lines.join('\n')}\n`);
    // The file's name is the session's id here: the corpus copy keeps a foreign sessionId inside.
    sid = 'subagent';
    server = await serve(homeEnv(home));
    client = await Client.open(server);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('replaces the secrets by default and counts them in the reply', async () => {
    const reply = await client.request('session_dump_write', { sid, agent: 'claude-code', format: 'json' });
    expect(reply, JSON.stringify(reply)).toMatchObject({ ok: true });
    expect(validateResponse('session_dump_write', reply).ok).toBe(true);
    expect(reply.redacted).toEqual({ 'Slack token': 1, 'Stripe key': 1 });
    const text = readFileSync(reply.path as string, 'utf8');
    expect(validate(SessionDumpFile, JSON.parse(text)).ok).toBe(true);
    expect(text).not.toContain(SLACK);
    expect(text).not.toContain(STRIPE);
    expect(text).toContain('SLACK_BOT_TOKEN=⟨redacted: Slack token⟩ and charge with ⟨redacted: Stripe key⟩.');
  });

  it('writes the text as it is with redact: false, and the server keeps its own copy untouched', async () => {
    const plain = await client.request('session_dump_write', { sid, agent: 'claude-code', redact: false });
    expect(plain.ok).toBe(true);
    expect(plain.redacted).toBeUndefined();
    expect(readFileSync(plain.path as string, 'utf8')).toContain(SLACK);
    // A redacted dump after it still finds the secret: the loaded session was never altered.
    const again = await client.request('session_dump_write', { sid, agent: 'claude-code', format: 'md' });
    expect(again.redacted).toEqual({ 'Slack token': 1, 'Stripe key': 1 });
    const md = readFileSync(again.path as string, 'utf8');
    expect(md).not.toContain(SLACK);
    expect(md).toContain('⟨redacted: Slack token⟩');
  });
});
