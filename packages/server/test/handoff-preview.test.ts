// `session_handoff_preview` over a real server: the size of the hand-off document of a corpus
// session with made-up keys planted in it, the secrets it would carry redacted (none counted with
// `redact: false`), a narrower selection measured smaller, and clear refusals for a session or a
// preset that is not there. The chat's `POST /api/sessions/handoff` refuses a bad body by name.
// The secrets found are listed masked, each with an id; the document the send builds leaves in clear
// exactly the ones whose ids it was given, and redacts the rest.
import { writeFileSync } from 'node:fs';
import { type RedactionFinding, validateResponse } from '@cairn/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import type { RunningServer } from '../src/index.js';
import { handoffDocument } from '../src/reader/handoff-document.js';
import { Client, claudeSessionHome, homeEnv, serve } from './helpers.js';

// Shapes of real keys, never real ones.
const SLACK = 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx';
const STRIPE = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';

describe.skipIf(!corpus)('session_handoff_preview', () => {
  let server: RunningServer;
  let client: Client;
  const sid = 'subagent';

  beforeAll(async () => {
    const { home, file, lines } = claudeSessionHome(Number.MAX_SAFE_INTEGER);
    const prompt = lines.findIndex((l) => l.includes('"role":"user","content":"'));
    if (prompt < 0) throw new Error('the corpus session no longer has a prompt to plant in');
    lines[prompt] = lines[prompt]!.replace(
      '"role":"user","content":"',
      `"role":"user","content":"post with SLACK_BOT_TOKEN=${SLACK} and charge with ${STRIPE}. `,
    );
    writeFileSync(file, `${lines.join('\n')}\n`);
    server = await serve(homeEnv(home));
    client = await Client.open(server);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('measures the document and counts the secrets it would redact', async () => {
    const reply = await client.request('session_handoff_preview', {
      sid,
      agent: 'claude-code',
      to: 'codex',
      preset: 'howto',
    });
    expect(reply, JSON.stringify(reply)).toMatchObject({ ok: true, bytes_per_token: 4 });
    expect(validateResponse('session_handoff_preview', reply).ok).toBe(true);
    expect(reply.redacted).toEqual({ 'Slack token': 1, 'Stripe key': 1 });
    expect(reply.items as number).toBeGreaterThan(0);
    expect(reply.tokens).toBe(Math.ceil((reply.bytes as number) / 4));
    expect(reply.bytes as number).toBeLessThan(reply.max_bytes as number);
    expect(typeof reply.last_item).toBe('string');

    const plain = await client.request('session_handoff_preview', {
      sid,
      agent: 'claude-code',
      preset: 'howto',
      redact: false,
    });
    expect(plain).toMatchObject({ ok: true, items: reply.items });
    expect(plain.redacted).toBeUndefined();

    const prompts = await client.request('session_handoff_preview', {
      sid,
      agent: 'claude-code',
      types: ['message:user:in'],
    });
    expect(prompts).toMatchObject({ ok: true, entries: { 'message:user:in': expect.any(Number) } });
    expect(prompts.bytes as number).toBeLessThan(reply.bytes as number);
  });

  it('lists the secrets found, masked, and leaves in clear only the ones kept', async () => {
    const args = { sid, agent: 'claude-code', to: 'codex', preset: 'howto' };
    const reply = await client.request('session_handoff_preview', args);
    expect(validateResponse('session_handoff_preview', reply).ok).toBe(true);
    // No secret travels in clear in the list: a glimpse of each end, and the item it is in.
    expect(JSON.stringify(reply)).not.toContain(SLACK);
    expect(JSON.stringify(reply)).not.toContain(STRIPE);
    const findings = reply.findings as Array<Record<string, unknown>>;
    expect(findings).toEqual([
      expect.objectContaining({
        kind: 'Slack token',
        masked: 'xoxb…UvWx',
        kept: false,
        item_type: 'message:user:in',
      }),
      expect.objectContaining({
        kind: 'Stripe key',
        masked: 'sk_l…p7dc',
        kept: false,
        item_type: 'message:user:in',
      }),
    ]);
    const [slack, stripe] = findings as unknown as [RedactionFinding, RedactionFinding];
    expect(slack.item).toBe(stripe.item);
    expect(slack.id).toMatch(/^slack-token:[0-9a-f]{16}:0$/);

    // The same choices measured again give the same ids, so the send picks out what was shown.
    const kept = await client.request('session_handoff_preview', { ...args, keep: [slack.id] });
    expect(kept.redacted).toEqual({ 'Stripe key': 1 });
    expect(kept.findings).toEqual([
      { ...slack, kept: true },
      { ...stripe, kept: false },
    ]);
    expect(kept.bytes as number).toBeGreaterThan(reply.bytes as number);

    // The document a send builds, from the same arguments the chat passes on.
    const sent = await handoffDocument(server.catalog, server.home, { ...args, keep: [slack.id] });
    if (!sent.ok) throw new Error(sent.error.message);
    const { markdown } = sent.value.document;
    expect(markdown).toContain(`SLACK_BOT_TOKEN=${SLACK}`);
    expect(markdown).not.toContain(STRIPE);
    expect(markdown).toContain('⟨redacted: Stripe key⟩');
    expect(markdown).not.toContain('⟨redacted: Slack token⟩');
    expect(markdown).toContain(
      '- secrets: 1 redacted, each replaced by a marker naming its kind; 1 left in by the user',
    );

    // An id that names nothing found keeps nothing.
    const none = await handoffDocument(server.catalog, server.home, { ...args, keep: ['slack-token:0:0'] });
    if (!none.ok) throw new Error(none.error.message);
    expect(none.value.document.markdown).not.toContain(SLACK);
    expect(none.value.document.redacted).toEqual({ 'Slack token': 1, 'Stripe key': 1 });
  });

  it('names what is not there', async () => {
    expect(await client.request('session_handoff_preview', { sid: 'no-such-session' })).toMatchObject({
      ok: false,
      error: { code: 'not_found', field: '/sid' },
    });
    expect(
      await client.request('session_handoff_preview', {
        sid,
        agent: 'claude-code',
        preset: 'no-such-preset',
      }),
    ).toMatchObject({ ok: false, error: { code: 'not_found', field: '/preset' } });
    expect(
      await client.request('session_handoff_preview', { sid, agent: 'claude-code', kind: 'copy' }),
    ).toMatchObject({ ok: false, error: { code: 'invalid_args' } });
  });

  it('refuses a hand-off body that is not one, naming the field', async () => {
    const url = new URL('/api/sessions/handoff', `http://127.0.0.1:${server.port}`);
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${server.token}` },
      body: JSON.stringify({ agent: 'codex', handoff: { agent: 'claude-code' } }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/hand-off request is invalid: .*sid/);

    const badKeep = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${server.token}` },
      body: JSON.stringify({ agent: 'codex', handoff: { sid, agent: 'claude-code', keep: 'all' } }),
    });
    expect(badKeep.status).toBe(400);
    expect(((await badKeep.json()) as { error: string }).error).toMatch(
      /hand-off request is invalid: .*keep/,
    );
  });
});
