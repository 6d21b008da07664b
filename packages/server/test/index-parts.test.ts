// A session indexed a part at a time gives the index what a whole read gives: the same documents
// lane by lane, the same summary, listing facts and requests. Every corpus session is read in small
// parts, so that even the short ones come in many.
import { listSessions, type SessionHead, type SessionPlatform } from '@cairn/transcript';
import { beforeAll, describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import { corpusPlatform, tempHome, tempPlatform } from '../../transcript/test/homes.js';
import {
  longClaudeSession,
  longPiSession,
  longQwenSession,
  longRollout,
} from '../../transcript/test/support/long-sessions.js';
import type { IndexDoc } from '../src/indexing/index-db.js';
import { docsOf, prepareIndex } from '../src/indexing/index-job.js';
import { type IndexPart, prepareInParts } from '../src/indexing/index-parts.js';

/** Documents by lane, each lane's in order: the order a read gives within a lane. */
function byLane(docs: readonly IndexDoc[]): Record<string, IndexDoc[]> {
  const out: Record<string, IndexDoc[]> = {};
  for (const d of docs) {
    const lane = d.agentId ?? '';
    const held = out[lane] ?? [];
    held.push(d);
    out[lane] = held;
  }
  return out;
}

/**
 * Reads the session whole and in parts of `partBytes`, and checks that both give the same facts and
 * documents. Answers how the parts went: 'streamed', 'one part', or why they started over.
 */
async function compare(head: SessionHead, partBytes: number, platform: SessionPlatform): Promise<string> {
  const job = { agent: head.agent, path: head.path, files: head.files };
  const whole = await prepareIndex(platform, job);
  const parts: IndexPart[] = [];
  for await (const p of prepareInParts(platform, job, { partBytes, bytes: true })) parts.push(p);
  expect(parts[0]?.kind, head.path).toBe('start');
  const end = parts.at(-1)!;
  if (end.kind !== 'end') throw new Error(`${head.path}: the parts did not end`);
  const restart = parts.findIndex((p) => p.kind === 'restart');
  const docs = parts.slice(restart + 1).flatMap((p) => (p.kind === 'docs' ? [...docsOf(p.batch)] : []));
  if (!whole.ok) {
    expect(end.facts.ok, head.path).toBe(false);
    return 'failed';
  }
  if (!end.facts.ok) throw new Error(`${head.path}: ${end.facts.error}`);
  const { docs: wholeBatches, stamps: _s, marks: _m, ok: _ok, ...wholeFacts } = whole;
  const { ok: _ok2, ...facts } = end.facts;
  for (const k of Object.keys(wholeFacts) as (keyof typeof facts)[])
    expect(facts[k], `${head.path} ${k}`).toEqual(wholeFacts[k]);
  expect(byLane(docs), head.path).toEqual(byLane(wholeBatches.flatMap((b) => [...docsOf(b)])));
  if (restart >= 0) return (parts[restart] as { why: string }).why;
  return head.size > partBytes && head.agent !== 'gemini-cli' ? 'streamed' : 'one part';
}

describe.skipIf(!corpus)('a session indexed a part at a time', () => {
  const platform = corpusPlatform();
  const heads: SessionHead[] = [];

  beforeAll(async () => {
    for await (const entry of listSessions(platform)) if (!('ref' in entry)) heads.push(entry);
  });

  it('gives every corpus session the documents and facts of a whole read', async () => {
    let streamed = 0;
    const restarted: string[] = [];
    for (const head of heads) {
      const how = await compare(head, 4096, platform);
      if (how === 'streamed') streamed++;
      else if (how !== 'one part') restarted.push(`${head.path}: ${how}`);
    }
    // Parts this small cut a Codex rollout where its translation must start over (a user message
    // paired with the record after it), which read those whole, as the check above shows; the rest
    // went part by part. Gemini CLI's sessions are one JSON document, read in one step.
    console.log(
      `${streamed} of ${heads.length} sessions read in parts; read whole after all:\n${restarted.join('\n')}`,
    );
    expect(restarted.every((r) => r.includes('/codex/'))).toBe(true);
    expect(streamed).toBeGreaterThan(heads.length / 2);
  }, 120_000);

  it('reads long sessions part by part, compactions, subagents and all, as a whole read does', async () => {
    const home = tempHome();
    // Nine copies make some 2,200 calls of Claude Code and 2,800 of Codex: more than the classifier
    // keeps once they are answered, so the parts' items are made with the older calls forgotten.
    const made = [
      longClaudeSession(home, 9),
      longRollout(home, 9),
      longPiSession(home),
      longQwenSession(home),
    ];
    const platform = tempPlatform(home);
    const found: SessionHead[] = [];
    for await (const entry of listSessions(platform)) if (!('ref' in entry)) found.push(entry);
    expect(found.map((h) => h.path).sort()).toEqual([...made].sort());
    for (const head of found) expect(await compare(head, 64 * 1024, platform), head.path).toBe('streamed');
  }, 120_000);
});
