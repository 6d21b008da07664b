// `cairn dump`, `cairn presets` and `cairn show --types`, run as a user would over the corpus with a
// fresh CAIRN_HOME.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DumpPresetsReadResult,
  SessionDumpFile,
  type SessionDumpFile as SessionDumpFileType,
  SessionDumpWriteResult,
  validate,
} from '@cairn/protocol';
import { describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import { parseTime } from '../src/time.js';
import { cairn, corpusEnv } from './run.js';

const SID = '4d5611e5-241a-462a-8d15-5122611a9569';
const AGENT = 'a2898e3';

function dumpFile(path: string): SessionDumpFileType {
  const file: unknown = JSON.parse(readFileSync(path, 'utf8'));
  const checked = validate(SessionDumpFile, file);
  if (!checked.ok) throw new Error(checked.error.message);
  return checked.value;
}

describe.skipIf(!corpus)('cairn dump', () => {
  const env = corpusEnv();
  const home = env.CAIRN_HOME!;

  it('writes the howto dump under CAIRN_HOME/dumps and answers with the reply', () => {
    const r = cairn(['dump', SID.slice(0, 8), '--preset', 'howto', '--json'], env);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const reply = JSON.parse(r.stdout);
    expect(validate(SessionDumpWriteResult, reply).ok).toBe(true);
    expect(reply.path.startsWith(join(home, 'dumps'))).toBe(true);
    const file = dumpFile(reply.path);
    expect(file.sid).toBe(SID);
    expect(file.types).toContain('tool:Bash');
    expect(file.types.some((t) => t.startsWith('@'))).toBe(false);
    expect(Object.values(reply.entries as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(
      file.items.length,
    );
    expect(reply.bytes).toBe(readFileSync(reply.path).length);
    expect(reply.ids.some((e: { kind: string; id: string }) => e.kind === 'agent' && e.id === AGENT)).toBe(
      true,
    );
  });

  it('dumps a subagent with --agent-id, from its side', () => {
    const r = cairn(['dump', SID, '--agent-id', AGENT, '--preset', 'howto', '--no-thinking', '--json'], env);
    expect(r.status).toBe(0);
    const file = dumpFile(JSON.parse(r.stdout).path);
    expect(file.agent_id).toBe(AGENT);
    expect(file.items[0]!.type).toBe('message:user:in');
    expect(file.types.at(-1)).toBe('-thinking');
  });

  it('writes Markdown to --out with --format md, types and a time range applied', () => {
    const out = join(home, 'out', 'session.md');
    const r = cairn(
      [
        'dump',
        SID,
        '--types',
        'message,tool:Bash,-message:sub',
        '--since',
        '2026-02-12T16:00:00Z',
        '--until',
        '2026-02-12T17:00:00Z',
        '--format',
        'md',
        '--out',
        out,
      ],
      env,
    );
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`wrote ${out}`);
    const md = readFileSync(out, 'utf8');
    expect(md.startsWith(`# Dump of claude-code session \`${SID}\``)).toBe(true);
    expect(md).toContain('### `message:user:in`');
    expect(md).toContain('`tool:Bash` call');
    expect(md).not.toContain('`message:sub:out`');
    expect(md).toContain('- range: `2026-02-12 16:00:00 UTC` to `2026-02-12 17:00:00 UTC`');
  });

  it('exits 2 on a bad --since, naming it, and writes nothing', () => {
    const fresh = corpusEnv();
    const r = cairn(['dump', SID, '--since', 'yesterday'], fresh);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("bad --since 'yesterday'");
    expect(existsSync(join(fresh.CAIRN_HOME!, 'dumps'))).toBe(false);
  });

  it.each([
    [['--until', '2026-13-01']],
    [['--since', '-10x']],
    [['--format', 'html']],
    [['--types', 'Tool:Bash']],
    [['--preset', 'nope']],
    [['--types', '@nope']],
    [['--since', '-1d', '--since-uuid', 'x']],
  ])('exits 2 on a bad value: %j', (args) => {
    const r = cairn(['dump', SID, ...args], env);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/usage: cairn dump/);
  });

  it('exits 1 when the session, the agent or the record is not there', () => {
    expect(cairn(['dump', 'no-such-session'], env).status).toBe(1);
    const agent = cairn(['dump', SID, '--agent-id', 'azzzzzz'], env);
    expect(agent.status).toBe(1);
    expect(agent.stderr).toContain("no subagent 'azzzzzz'");
    expect(cairn(['dump', SID, '--since-uuid', 'no-such-record'], env).status).toBe(1);
  });

  it('refuses to write into an agent folder', () => {
    const r = cairn(['dump', SID, '--out', join(env.CLAUDE_CONFIG_DIR!, 'projects', 'x.dump.json')], env);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('refusing to write');
  });

  it('dumps Codex and Gemini CLI sessions too', () => {
    const sessions = JSON.parse(cairn(['sessions', '--json'], env).stdout).sessions as {
      agent: string;
      id: string;
    }[];
    for (const agent of ['codex', 'gemini-cli']) {
      const s = sessions.find((x) => x.agent === agent)!;
      const r = cairn(['dump', s.id, '--agent', agent, '--json'], env);
      expect(r.status, r.stderr).toBe(0);
      const file = dumpFile(JSON.parse(r.stdout).path);
      expect(file.agent).toBe(agent);
      expect(file.items.some((i) => i.type.startsWith('tool:'))).toBe(true);
    }
  });
});

describe.skipIf(!corpus)('cairn presets and cairn show --types', () => {
  it('lists the built-in presets, and the config overrides one by name', () => {
    const env = corpusEnv();
    const r = cairn(['presets', '--json'], env);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(validate(DumpPresetsReadResult, out).ok).toBe(true);
    const names = out.presets.map((p: { name: string }) => p.name);
    for (const n of ['file', 'howto', 'conversation', 'handover']) expect(names).toContain(n);

    mkdirSync(env.CAIRN_HOME!, { recursive: true });
    writeFileSync(
      join(env.CAIRN_HOME!, 'config.json'),
      JSON.stringify({ dump: { presets: [{ name: 'howto', opts: { types: ['thinking'] } }] } }),
    );
    const again = JSON.parse(cairn(['presets', '--json'], env).stdout);
    expect(again.presets.find((p: { name: string }) => p.name === 'howto').opts.types).toEqual(['thinking']);
    const dumped = cairn(['dump', SID, '--preset', 'howto', '--json'], env);
    expect(Object.keys(JSON.parse(dumped.stdout).entries)).toEqual(['thinking']);
  });

  it('refuses a config whose presets loop, with the cycle named', () => {
    const env = corpusEnv();
    mkdirSync(env.CAIRN_HOME!, { recursive: true });
    writeFileSync(
      join(env.CAIRN_HOME!, 'config.json'),
      JSON.stringify({
        dump: {
          presets: [
            { name: 'a', opts: { types: ['@b'] } },
            { name: 'b', opts: { types: ['@a'] } },
          ],
        },
      }),
    );
    const r = cairn(['presets'], env);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('cycle: a -> b -> a');
    expect(cairn(['dump', SID], env).status).toBe(1);
    expect(
      existsSync(join(env.CAIRN_HOME!, 'dumps')) && readdirSync(join(env.CAIRN_HOME!, 'dumps')).length,
    ).toBeFalsy();
  });

  it('shows the items a selection keeps, one per line, the same as the dump holds', () => {
    const env = corpusEnv();
    const shown = cairn(['show', SID, '--types', 'message:user,tool:Bash', '--json'], env);
    expect(shown.status).toBe(0);
    const lines = shown.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { uuid: string; type: string });
    const dumped = cairn(['dump', SID, '--types', 'message:user,tool:Bash', '--json'], env);
    const file = dumpFile(JSON.parse(dumped.stdout).path);
    expect(lines.map((l) => l.uuid)).toEqual(file.items.map((i) => i.uuid));
    expect(new Set(lines.map((l) => l.type))).toEqual(
      new Set(['message:user:in', 'message:user:out', 'tool:Bash']),
    );

    const text = cairn(['show', SID, '--types', 'message:user:in'], env);
    expect(text.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(text.stdout).toContain('message:user:in');
    expect(cairn(['show', SID, '--types', 'tool:Bash', '--since', 'later'], env).status).toBe(2);
  });
});

describe('times on the command line', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  it.each([
    ['-10m', now - 600_000],
    ['-2h', now - 7_200_000],
    ['-1d', now - 86_400_000],
    ['-30s', now - 30_000],
    ['2026-02-12T16:00:00Z', Date.parse('2026-02-12T16:00:00Z')],
    ['2026-02-12T16:00:00.5+02:00', Date.parse('2026-02-12T14:00:00.5Z')],
    ['2026-02-12', Date.parse('2026-02-12T00:00:00Z')],
  ])('reads %s', (value, expected) => {
    expect(parseTime(value, now)).toBe(expected);
  });

  it.each(['yesterday', '10m', '-10', '-1y', '2026-02-31', '2026-13-01', '2026-02-12T25:00:00Z', ''])(
    'refuses %j',
    (value) => {
      expect(parseTime(value, now)).toBeUndefined();
    },
  );
});
