// The redactor's first look rules texts out before the rules run. It must never rule out a text a
// rule finds a secret in: here every text is also scanned whole, on its own, by every rule, and the
// redacted output must be the same, on the labelled set, on every kind of key the rules know, and on
// every corpus session with secrets planted among its strings.
import { describe, expect, it } from 'vitest';
import { BUILTIN_PRESETS, buildDump, listSessions, loadTranscript } from '../src/index.js';
import { redactItems } from '../src/redact/items.js';
import { mayHoldSecret } from '../src/redact/prefilter.js';
import {
  collectStrings,
  findSecrets,
  type RedactionCounts,
  redactionMarker,
  redactTexts,
  redactValue,
  secretFilter,
} from '../src/redact/redact.js';
import { corpus } from './corpus.js';
import { corpusPlatform } from './homes.js';
import { ALNUM, B64, nearMisses, pick, secrets } from './redact-labelled.js';

/** Each text scanned whole by every rule, with nothing ruled out first. */
async function scannedOneByOne(
  texts: readonly string[],
): Promise<{ texts: string[]; counts: RedactionCounts }> {
  const counts: RedactionCounts = {};
  const out: string[] = [];
  for (const text of texts) {
    let cursor = 0;
    const pieces: string[] = [];
    for (const { start, end, kind } of await findSecrets(text)) {
      if (start < cursor) continue;
      pieces.push(text.slice(cursor, start), redactionMarker(kind));
      cursor = end;
      counts[kind] = (counts[kind] ?? 0) + 1;
    }
    pieces.push(text.slice(cursor));
    out.push(pieces.join(''));
  }
  return { texts: out, counts };
}

// A 1Password service account token: `ops_` and base64 of a JSON object.
function onePasswordToken(): string {
  for (let pad = 0; ; pad++) {
    const body = Buffer.from(
      JSON.stringify({ signInAddress: 'my.1password.com', key: pick(ALNUM, 80 + pad) }),
    )
      .toString('base64')
      .replace(/=+$/, '');
    if (body.endsWith('fQ')) return `ops_${body}`;
  }
}

/** A text for every rule and every way a key position is written, beyond the labelled set. */
function everyKind(): string[] {
  return [
    `curl -X POST https://hooks.slack.com/services/T${pick(ALNUM, 8)}/B${pick(ALNUM, 8)}/${pick(ALNUM, 24)}`,
    `SENDGRID_API_KEY=SG.${pick(ALNUM, 22)}.${pick(ALNUM, 43)}`,
    `shopify: shpat_${pick('abcdef0123456789', 32)}`,
    `linear key lin_api_${pick(ALNUM, 40)}`,
    `export OP_SERVICE_ACCOUNT_TOKEN=${onePasswordToken()}`,
    `"repository": "https://${pick(ALNUM, 40)}:x-oauth-basic@github.com/o/r.git"`,
    `aws_account_id = ${pick('0123456789', 4)}-${pick('0123456789', 4)}-${pick('0123456789', 4)}`,
    `mysql://root:${pick(ALNUM, 12)}@127.0.0.2:3306/app`,
    `ftp://ops:x9k@files.example.org/pub`,
    `git -c http.extraheader="Authorization: token ${pick(ALNUM, 40)}" fetch`,
    `config = { apiKey := "${pick(ALNUM, 32)}" }`,
    `'private-key' => '${pick(B64, 44)}'`,
    `Credentials:\t${pick(ALNUM, 24)}`,
    `AWS_SECRET_ACCESS_KEY\n= ${pick(ALNUM, 40)}`,
    `stripe listen --api-key rk_test_${pick(ALNUM, 30)}`,
    `anthropic sk-ant-api03-${pick(ALNUM, 95)}AA done`,
    `legacy openai sk-${pick(ALNUM, 20)}T3BlbkFJ${pick(ALNUM, 20)}`,
    `gho_${pick(ALNUM, 36)} and ghs_${pick(ALNUM, 36)}`,
    `ASIA${pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)} was the session key`,
    `-----BEGIN EC PRIVATE KEY-----\nMI${pick(B64, 120)}\n-----END EC PRIVATE KEY-----`,
  ];
}

describe('the first look', () => {
  it('knows every scanner of the rule set, so it is on', async () => {
    expect(await secretFilter()).toBe(mayHoldSecret);
  });

  it('lets through every text a rule finds a secret in', async () => {
    const texts = [...secrets().map((s) => s.text), ...everyKind()];
    for (const text of texts) {
      expect((await findSecrets(text)).length, text).toBeGreaterThan(0);
      expect(mayHoldSecret(text), text).toBe(true);
    }
  });

  it('rules out the near-misses and the ordinary text around keys', () => {
    const ruledOut = nearMisses().filter((t) => !mayHoldSecret(t));
    // Only the near-misses that name a key position reach the rules (which then keep them).
    expect(ruledOut.length).toBeGreaterThan(nearMisses().length / 2);
    for (const text of [
      'task_id: b7b23b2, rework_count: 3',
      'see spotter-plugin/hooks/hooks.json',
      'DecodeError{position: 0, token: nil}',
      'the max_tokens: 4096 setting',
      'a risk-free desk-top change',
    ])
      expect(mayHoldSecret(text), text).toBe(false);
  });
});

describe('redaction with the first look', () => {
  it('gives what scanning every text whole gives, on the labelled set and every kind of key', async () => {
    const texts = [...secrets().map((s) => s.text), ...everyKind(), ...nearMisses()];
    const fast = await redactTexts(texts);
    const whole = await scannedOneByOne(texts);
    expect(fast.texts).toEqual(whole.texts);
    expect(fast.counts).toEqual(whole.counts);
    expect(Object.keys(fast.counts).length).toBeGreaterThan(15);
  });

  it('no longer fails on a text that names a secretlint comment', async () => {
    const key = `AKIA${pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}`;
    const r = await redactTexts([`add // secretlint-disable-line after ${key}`]);
    expect(r.texts).toEqual([`add // secretlint-disable-line after ${redactionMarker('AWS access key')}`]);
  });

  it('redacts items a batch at a time as redactValue does, copying only what holds a secret', async () => {
    const planted = secrets();
    const items = planted.map((s, i) => ({
      uuid: `i${i}`,
      input: { command: s.text },
      other: { a: 'plain text' },
    }));
    for (const batch of [1, 200, 1e9]) {
      const r = await redactItems(items, batch);
      const whole = await redactValue(items);
      expect(r.items).toEqual(whole.value);
      expect(r.counts).toEqual(whole.counts);
      r.items.forEach((item, i) => {
        expect(item).not.toBe(items[i]);
        expect(item.other).toBe(items[i]?.other);
      });
    }
    const plain = [{ text: 'nothing secret in here at all' }];
    expect((await redactItems(plain, 10)).items[0]).toBe(plain[0]);
  });
});

describe.skipIf(!corpus)('redaction with the first look on real sessions', () => {
  it('gives what scanning every string whole gives, with secrets planted among each session', async () => {
    const platform = corpusPlatform();
    const planted = [...secrets().map((s) => s.text), ...everyKind()];
    let plantedSoFar = 0;
    let sessions = 0;
    let strings = 0;
    let scannedChars = 0;
    let allChars = 0;
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
      const texts: string[] = [];
      collectStrings(built.value.file, texts);
      // A secret set inside every 40th string, in the middle of its text, each kind in turn.
      const mixed = texts.map((t, i) => {
        if (i % 40 !== 7) return t;
        const at = Math.floor(t.length / 2);
        return `${t.slice(0, at)}\n${planted[plantedSoFar++ % planted.length]}\n${t.slice(at)}`;
      });
      const unique = [...new Set(mixed)];
      const fast = await redactTexts(mixed);
      const whole = await scannedOneByOne(unique);
      const expected = new Map(unique.map((t, i) => [t, whole.texts[i]]));
      expect(fast.texts, `${e.agent} ${e.id}`).toEqual(mixed.map((t) => expected.get(t)));
      sessions++;
      strings += texts.length;
      for (const t of new Set(texts)) {
        allChars += t.length;
        if (mayHoldSecret(t)) scannedChars += t.length;
      }
    }
    process.stdout.write(
      `first look: ${sessions} corpus sessions, ${strings} strings; ` +
        `${((scannedChars / allChars) * 100).toFixed(1)}% of their distinct text left for the rules\n`,
    );
    expect(sessions).toBeGreaterThan(5);
    expect(plantedSoFar).toBeGreaterThan(planted.length);
  }, 180_000);
});
