// `cairn usage blocks --json` beside ccusage's own on sessions working now: every window says
// whether it is open, and the open one carries the burn rate and projection ccusage gives it, under
// the same names and with the same values; closed windows and gaps carry neither.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ccusageBin, ccusageJson } from './ccusage.js';
import { cairn } from './run.js';

const bin = ccusageBin();
type Row = Record<string, unknown>;

/**
 * A Claude Code home with an old window (a day ago, two requests), and a window open now: requests
 * from 100 minutes ago to 20 minutes ago, on two models, with one-hour cache writes.
 */
function workingHome(): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), 'cairn-usage-burn-'));
  const project = join(home, '.claude', 'projects', '-home-dev-burn');
  mkdirSync(project, { recursive: true });
  const now = Date.now();
  const times = [
    now - 26 * 3_600_000,
    now - 25.5 * 3_600_000,
    ...[100, 80, 60, 40, 20].map((m) => now - m * 60_000),
  ];
  const sessionId = '0c0ffee0-0000-4000-8000-00000000b1b1';
  const lines = times.flatMap((at, i) => {
    const stamp = new Date(at).toISOString();
    return [
      JSON.stringify({
        type: 'user',
        uuid: `u${i}`,
        parentUuid: i === 0 ? null : `a${i - 1}`,
        sessionId,
        cwd: '/home/dev/burn',
        timestamp: stamp,
        message: { role: 'user', content: `step ${i}` },
      }),
      JSON.stringify({
        type: 'assistant',
        uuid: `a${i}`,
        parentUuid: `u${i}`,
        sessionId,
        cwd: '/home/dev/burn',
        timestamp: stamp,
        requestId: `req_${i}`,
        message: {
          id: `msg_${i}`,
          type: 'message',
          role: 'assistant',
          model: i % 2 === 0 ? 'claude-sonnet-4-5-20250929' : 'claude-haiku-4-5-20251001',
          content: [{ type: 'text', text: `done ${i}` }],
          usage: {
            input_tokens: 30 + i,
            output_tokens: 700 + 11 * i,
            cache_read_input_tokens: 3_000 * i,
            cache_creation_input_tokens: 400,
            cache_creation: { ephemeral_5m_input_tokens: 300, ephemeral_1h_input_tokens: 100 },
          },
        },
      }),
    ];
  });
  writeFileSync(join(project, `${sessionId}.jsonl`), `${lines.join('\n')}\n`);
  return {
    PATH: process.env.PATH,
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    CAIRN_HOME: join(home, '.cairn'),
  };
}

describe.skipIf(!bin)("cairn usage blocks --json: ccusage's burnRate, projection and isActive", () => {
  it('gives every window the fields ccusage gives, with its values', () => {
    const env = workingHome();
    const theirs = ccusageJson(bin!, ['claude', 'blocks'], env).blocks as Row[];
    const r = cairn(['usage', 'blocks', '--json'], env);
    expect(r.status, r.stderr).toBe(0);
    const ours = (JSON.parse(r.stdout) as { blocks: Row[] }).blocks;
    expect(ours.map((b) => b.id)).toEqual(theirs.map((b) => b.id));
    expect(ours.map((b) => b.isActive)).toEqual(theirs.map((b) => b.isActive));
    // A gap, a closed window and the open one.
    expect(theirs.map((b) => [b.isGap, b.isActive])).toEqual([
      [false, false],
      [true, false],
      [false, true],
    ]);
    for (const [i, t] of theirs.entries()) {
      const o = ours[i]!;
      // Present on every window, null where ccusage has null.
      expect(Object.hasOwn(o, 'burnRate') && Object.hasOwn(o, 'projection'), String(t.id)).toBe(true);
      if (t.burnRate === null) {
        expect(o.burnRate).toBeNull();
        expect(o.projection).toBeNull();
        continue;
      }
      const tr = t.burnRate as Record<string, number>;
      const or = o.burnRate as Record<string, number>;
      expect(Object.keys(or).sort()).toEqual(Object.keys(tr).sort());
      expect(or.tokensPerMinute).toBeCloseTo(tr.tokensPerMinute!, 6);
      expect(or.tokensPerMinuteForIndicator).toBeCloseTo(tr.tokensPerMinuteForIndicator!, 6);
      // The two catalogs price these models alike.
      expect(or.costPerHour).toBeCloseTo(tr.costPerHour!, 6);
      const tp = t.projection as Record<string, number>;
      const op = o.projection as Record<string, number>;
      expect(Object.keys(op).sort()).toEqual(Object.keys(tp).sort());
      // The two ran a moment apart: a minute may have gone by, and with it a minute's tokens.
      expect(Math.abs(op.remainingMinutes! - tp.remainingMinutes!)).toBeLessThanOrEqual(1);
      expect(Math.abs(op.totalTokens! - tp.totalTokens!)).toBeLessThanOrEqual(Math.ceil(tr.tokensPerMinute!));
      expect(Math.abs(op.totalCost! - tp.totalCost!)).toBeLessThanOrEqual(tr.costPerHour! / 60 + 0.01);
    }
  }, 120_000);
});
