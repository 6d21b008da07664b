// Reviewed redaction: each secret found is listed once per occurrence with an id that is the same on
// every scan of the same parts, shown only masked; the ids given to keep stay in clear, the rest
// become markers, and only those are counted.
import { describe, expect, it } from 'vitest';
import { maskSecret, reviewRedactions } from '../src/redact/review.js';

// Shapes of real keys, never real ones.
const GITHUB = 'ghp_R4nd0mL00k1ngT0k3nV4lu3F0rT3st1ng0Ab';
const STRIPE = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';

const parts = () => [
  { value: 'Deploy notes' },
  { value: { text: `export GITHUB_TOKEN=${GITHUB}` }, item: 'a1', itemType: 'message:user:in' },
  { value: { out: [`charge with ${STRIPE}`, `again ${GITHUB}`] }, item: 'b2', itemType: 'tool:Bash' },
];

describe('reviewRedactions', () => {
  it('lists every occurrence, masked, with ids that hold from one scan to the next', async () => {
    const first = await reviewRedactions(parts());
    expect(first.findings.map((f) => [f.kind, f.masked, f.item, f.item_type, f.kept])).toEqual([
      ['GitHub token', 'ghp_…g0Ab', 'a1', 'message:user:in', false],
      ['Stripe key', 'sk_l…p7dc', 'b2', 'tool:Bash', false],
      ['GitHub token', 'ghp_…g0Ab', 'b2', 'tool:Bash', false],
    ]);
    const [one, , two] = first.findings;
    // The same secret twice: the same hash, told apart by the occurrence.
    expect(one?.id.replace(/:0$/, ':1')).toBe(two?.id);
    expect(JSON.stringify(first.findings)).not.toContain(GITHUB);
    expect(JSON.stringify(first.findings)).not.toContain(STRIPE);
    expect(first.counts).toEqual({ 'GitHub token': 2, 'Stripe key': 1 });
    expect(JSON.stringify(first.values)).not.toContain(GITHUB);
    // The part with no secret is handed back as it was.
    expect(first.values[0]).toBe('Deploy notes');

    const again = await reviewRedactions(parts());
    expect(again.findings.map((f) => f.id)).toEqual(first.findings.map((f) => f.id));
  });

  it('leaves exactly the kept occurrences in clear and counts only what it replaced', async () => {
    const ids = (await reviewRedactions(parts())).findings.map((f) => f.id);
    const r = await reviewRedactions(parts(), new Set([ids[2]!]));
    expect(r.findings.map((f) => f.kept)).toEqual([false, false, true]);
    expect(r.counts).toEqual({ 'GitHub token': 1, 'Stripe key': 1 });
    expect(r.values[1]).toEqual({ text: 'export GITHUB_TOKEN=⟨redacted: GitHub token⟩' });
    expect(r.values[2]).toEqual({ out: ['charge with ⟨redacted: Stripe key⟩', `again ${GITHUB}`] });
  });

  it('shows no more than a sixth of a secret at each end, four characters at most', () => {
    expect(maskSecret('AKIAIOSFODNN7EXAMPLEXYZ1')).toBe('AKIA…XYZ1');
    expect(maskSecret('hunter2pass!')).toBe('hu…s!');
    expect(maskSecret('abc12')).toBe('… (5 characters)');
  });
});
