// `cairn show` of one subagent's lane, of a lane bounded by records, and of the items around one
// (`--at`), all printed while the session is read in parts, print what the whole read gives: for the
// corpus sessions with subagents and for a long session.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BUILTIN_PRESETS,
  buildDump,
  ITEM_ROOTS,
  loadTranscript,
  nodePlatform,
  type Transcript,
} from '../../transcript/src/index.js';
import { corpus } from '../../transcript/test/corpus.js';
import { homeEnv, tempHome } from '../../transcript/test/homes.js';
import { longClaudeSession } from '../../transcript/test/support/long-sessions.js';
import { cairn, corpusEnv, corpusTranscripts } from './run.js';

const joined = (lines: string[]): string => (lines.length > 0 ? `${lines.join('\n')}\n` : '');

/** The items the whole read's dump of `args` holds, one JSON line each. */
function wholeLines(t: Transcript, args: Record<string, unknown>): string[] {
  const built = buildDump(t, { sid: t.session.id, ...args }, { presets: BUILTIN_PRESETS, writtenAt: 0 });
  if (!built.ok) throw new Error(built.error.message);
  return built.value.file.items.map((i) => JSON.stringify(i));
}

/** What `--at <uuid> --context n --json` prints, from the whole read. */
function aroundLines(t: Transcript, uuid: string, n: number, agentId?: string): string[] {
  const lines = wholeLines(t, { types: [...ITEM_ROOTS], ...(agentId ? { agent_id: agentId } : {}) });
  const i = lines.findIndex((l) => (JSON.parse(l) as { uuid: string }).uuid === uuid);
  expect(i).toBeGreaterThanOrEqual(0);
  return lines.slice(Math.max(0, i - n), i + n + 1);
}

/** Runs `cairn show` and expects `want` exactly. */
function expectShown(args: string[], env: NodeJS.ProcessEnv, want: string[]): void {
  const r = cairn(['show', ...args], env);
  expect(r.stderr, args.join(' ')).toBe('');
  expect(r.status, args.join(' ')).toBe(0);
  if (r.stdout !== joined(want)) expect(r.stdout, args.join(' ')).toBe(joined(want));
}

describe.skipIf(!corpus)('cairn show of a lane, bounded, or around an item, read in parts', () => {
  it("prints the whole read's items for every corpus session with subagents", async () => {
    const env = corpusEnv();
    let lanes = 0;
    for await (const { t, ref } of corpusTranscripts(env)) {
      const subagents = t.agents.filter((a) => a.parentId !== undefined);
      if (subagents.length === 0) continue;
      for (const lane of subagents) {
        lanes++;
        const types = ['message', 'tool'];
        expectShown(
          [...ref, '--agent-id', lane.id, '--types', types.join(','), '--json'],
          env,
          wholeLines(t, { agent_id: lane.id, types }),
        );
        const items = wholeLines(t, { agent_id: lane.id, types: [...ITEM_ROOTS] });
        if (items.length === 0) continue;
        const uuid = (JSON.parse(items[Math.floor(items.length / 2)]!) as { uuid: string }).uuid;
        expectShown(
          [...ref, '--agent-id', lane.id, '--at', uuid, '--context', '2', '--json'],
          env,
          aroundLines(t, uuid, 2, lane.id),
        );
      }
      // The main lane between two records, and around its first and last items.
      const main = t.events.filter((e) => e.agentId === t.agents[0]?.id);
      const since = main[Math.floor(main.length / 4)]!.id;
      const until = main[Math.floor((main.length * 3) / 4)]!.id;
      expectShown(
        [...ref, '--since-uuid', since, '--until-uuid', until, '--types', 'tool', '--json'],
        env,
        wholeLines(t, { since_uuid: since, until_uuid: until, types: ['tool'] }),
      );
      const all = wholeLines(t, { types: [...ITEM_ROOTS] });
      for (const line of [all[0]!, all[all.length - 1]!]) {
        const uuid = (JSON.parse(line) as { uuid: string }).uuid;
        expectShown([...ref, '--at', uuid, '--context', '3', '--json'], env, aroundLines(t, uuid, 3));
      }
    }
    expect(lanes).toBeGreaterThan(3);
  }, 300_000);

  it('prints the items around one early in a long session, and says when an item is not there', async () => {
    const home = tempHome();
    const path = longClaudeSession(home, 3);
    const agentHomes = homeEnv(home);
    const env = { PATH: process.env.PATH, ...agentHomes, CAIRN_HOME: join(home, '.cairn') };
    const platform = nodePlatform({ env: agentHomes, homeDir: home });
    const loaded = await loadTranscript(platform, { path, agent: 'claude-code' });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const t = loaded.value;
    const all = wholeLines(t, { types: [...ITEM_ROOTS] });
    for (const k of [40, Math.floor(all.length / 2)]) {
      const uuid = (JSON.parse(all[k]!) as { uuid: string }).uuid;
      expectShown([path, '--at', uuid, '--context', '4', '--json'], env, aroundLines(t, uuid, 4));
      const plain = cairn(['show', path, '--at', uuid, '--context', '4'], env);
      expect(plain.stdout.split('\n').filter((l) => l.startsWith('>'))).toHaveLength(1);
    }
    const lane = t.agents.find((a) => a.parentId !== undefined)!;
    expectShown(
      [path, '--agent-id', lane.id, '--types', 'tool', '--json'],
      env,
      wholeLines(t, { agent_id: lane.id, types: ['tool'] }),
    );
    const missing = cairn(['show', path, '--at', 'no-such-item'], env);
    expect(missing.status).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toContain('no item no-such-item');
    const noLane = cairn(['show', path, '--agent-id', 'no-such-lane', '--types', 'tool'], env);
    expect(noLane.status).not.toBe(0);
    expect(noLane.stderr).toContain("no subagent 'no-such-lane'");
  }, 300_000);
});
