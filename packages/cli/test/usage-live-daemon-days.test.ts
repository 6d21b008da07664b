// `cairn usage blocks --live --since/--until` with a daemon running: the window drawn is that of the
// requests on the days asked, in the zone asked, exactly as the command finds it when it reads the
// files itself. Two sessions straddle a midnight of the zone: one before it, one after.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '@cairn/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeExchange } from '../../server/test/support/claude-lines.js';

const bin = resolve(dirname(fileURLToPath(import.meta.url)), '../../../bin/cairn.js');
const before = '0c0ffee0-0000-4000-8000-0000000da7a1';
const after = '0c0ffee0-0000-4000-8000-0000000da7a2';
const MINUTE = 60_000;

/**
 * A whole-hour zone where it is now between 01:00 and 02:00, so that its last midnight was between
 * one and two hours ago: requests 150 and more minutes old fall on the day before, 30 minutes old
 * on today, and all of them in one 5-hour window when no day is left out.
 */
function zoneAfterMidnight(now: number): { zone: string; today: string; yesterday: string } {
  const hour = new Date(now).getUTCHours();
  const offset = 1 - hour >= -12 ? 1 - hour : 25 - hour;
  // Etc/GMT names count the other way: Etc/GMT-3 is three hours ahead of UTC.
  const zone = offset === 0 ? 'UTC' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
  const day = (at: number) => new Date(at + offset * 3_600_000).toISOString().slice(0, 10);
  return { zone, today: day(now), yesterday: day(now - 24 * 3_600_000) };
}

/** The lines of a drawing that do not move with the clock: the window's start, tokens, cost, models, sessions. */
function steady(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => /^(tokens|cost|models|sessions| {2}\S)/.test(l) || /^window/.test(l))
    .map((l) => (l.startsWith('window') ? l.replace(/, -?\d+ min left$/, '') : l));
}

const tokensOf = (text: string): number | undefined => {
  const m = /^tokens\s+([\d,]+)/m.exec(text);
  return m ? Number(m[1]!.replaceAll(',', '')) : undefined;
};

function run(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) =>
    execFile(process.execPath, [bin, 'usage', 'blocks', '--live', ...args], { env }, (err, stdout, stderr) =>
      done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

describe.skipIf(process.platform === 'win32')(
  'cairn usage blocks --live --since/--until through the daemon',
  () => {
    const root = mkdtempSync(join(tmpdir(), 'cairn-usage-live-days-'));
    const agentHome = join(root, 'home');
    const projects = join(agentHome, '.claude', 'projects', '-home-dev-days');
    const now = Date.now();
    const { zone, today, yesterday } = zoneAfterMidnight(now);
    // The daemon's CLI has no session of its own: whatever it draws, the daemon counted.
    const daemonCli = { PATH: process.env.PATH, HOME: join(root, 'empty'), CAIRN_HOME: join(root, 'cairn') };
    // The same sessions read from the files, with no daemon for this home.
    const filesCli = {
      PATH: process.env.PATH,
      HOME: agentHome,
      CLAUDE_CONFIG_DIR: join(agentHome, '.claude'),
      CAIRN_HOME: join(root, 'cairn-files'),
    };
    let server: Awaited<ReturnType<typeof startServer>>;

    beforeAll(async () => {
      mkdirSync(projects, { recursive: true });
      mkdirSync(daemonCli.HOME, { recursive: true });
      const exchange = (sessionId: string, i: number, minutesAgo: number, input: number, output: number) =>
        claudeExchange({
          sessionId,
          cwd: '/home/dev/days',
          i,
          at: now - minutesAgo * MINUTE,
          usage: { input_tokens: input, output_tokens: output },
        });
      writeFileSync(
        join(projects, `${before}.jsonl`),
        exchange(before, 0, 200, 1_000, 200) + exchange(before, 1, 150, 2_000, 300),
      );
      writeFileSync(join(projects, `${after}.jsonl`), exchange(after, 0, 30, 4_000, 500));
      server = await startServer({
        env: { PATH: process.env.PATH!, HOME: agentHome },
        homeDir: agentHome,
        cairnHome: daemonCli.CAIRN_HOME,
        demo: false,
        port: 0,
        waitForIndex: true,
      });
    }, 120_000);
    afterAll(async () => {
      await server?.close();
    });

    it('draws the window of the days asked, as the command does from the files', async () => {
      const cases: { args: string[]; tokens: number | undefined; sessions: string[] }[] = [
        { args: [], tokens: 8_000, sessions: [after, before] },
        // Today alone: the window opens with the request after midnight.
        { args: ['--since', today], tokens: 4_500, sessions: [after] },
        // The day before alone: its window is still open, with its own requests only.
        { args: ['--until', yesterday], tokens: 3_500, sessions: [before] },
        { args: ['--since', yesterday, '--until', today], tokens: 8_000, sessions: [after, before] },
        // No request on the days asked: no window.
        { args: ['--until', '2020-01-01'], tokens: undefined, sessions: [] },
      ];
      for (const { args, tokens, sessions } of cases) {
        const withZone = [...args, '--timezone', zone];
        const daemon = await run(withZone, daemonCli);
        expect(daemon.code, daemon.stderr).toBe(0);
        expect(tokensOf(daemon.stdout), `${withZone.join(' ')}\n${daemon.stdout}`).toBe(tokens);
        const listed = [...daemon.stdout.matchAll(/^ {2}claude-code\s+(\S+)/gm)].map((m) => m[1]);
        expect(listed, withZone.join(' ')).toEqual(sessions);
        if (tokens === undefined) expect(daemon.stdout).toContain('no billing window is open');
        const files = await run(withZone, filesCli);
        expect(files.code, files.stderr).toBe(0);
        expect(steady(daemon.stdout), withZone.join(' ')).toEqual(steady(files.stdout));
      }
    }, 120_000);
  },
);
