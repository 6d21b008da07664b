// The command that resumes a session in its agent's own CLI: the flag each agent takes, and a folder
// quoted so that a POSIX shell reads it back exactly, whatever characters its name holds.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { resumeCommand, shellQuote } from '../src/session/resume-command.js';

/** What `sh` makes of `word` as one argument. */
const shellReads = (word: string): string =>
  execFileSync('sh', ['-c', `printf '%s' ${word}`], { encoding: 'utf8' });

describe('the resume command', () => {
  it("uses each agent's own flag, in the session's folder", () => {
    const id = '4d5611e5-241a-462a-8d15-5122611a9569';
    expect(resumeCommand('claude-code', id, '/home/me/project')).toBe(
      `cd /home/me/project && claude --resume ${id}`,
    );
    expect(resumeCommand('codex', id, '/p')).toBe(`cd /p && codex resume ${id}`);
    expect(resumeCommand('gemini-cli', id, '/p')).toBe(`cd /p && gemini --resume ${id}`);
    expect(resumeCommand('qwen-code', id, '/p')).toBe(`cd /p && qwen --resume ${id}`);
    expect(resumeCommand('opencode', 'ses_1', '/p')).toBe('cd /p && opencode --session ses_1');
    expect(resumeCommand('kilo', 'ses_1', '/p')).toBe('cd /p && kilo --session ses_1');
    expect(resumeCommand('pi', id, '/p')).toBe(`cd /p && pi --session ${id}`);
    expect(resumeCommand('copilot-cli', id, '/p')).toBe(`cd /p && copilot --resume ${id}`);
  });

  it('leaves out the folder when the session names none, and says nothing for an agent without a resume', () => {
    expect(resumeCommand('codex', 'abc', undefined)).toBe('codex resume abc');
    expect(resumeCommand('some-agent', 'abc', '/p')).toBeUndefined();
    expect(resumeCommand('codex', '', '/p')).toBeUndefined();
  });

  it('quotes a folder so that the shell reads back exactly its name', () => {
    const names = [
      '/home/me/my project',
      "/home/me/it's here",
      '/tmp/$(touch pwned)',
      '/tmp/`id`;rm -rf x',
      '/tmp/a\nb',
      '/tmp/*?[a]',
      "/tmp/''\"\\",
      '/tmp/ünïcode dir',
      '-starts-with-dash',
    ];
    for (const name of names) expect(shellReads(shellQuote(name)), name).toBe(name);
    expect(shellQuote('/plain/path-1.2_x')).toBe('/plain/path-1.2_x');
    expect(resumeCommand('claude-code', 'x', "/a b/it's")).toBe("cd '/a b/it'\\''s' && claude --resume x");
    expect(resumeCommand('claude-code', 'x', '-d')).toBe('cd -- -d && claude --resume x');
  });

  it('runs in a real shell: cd lands in the quoted folder', () => {
    const dir = execFileSync('mktemp', ['-d'], { encoding: 'utf8' }).trim();
    const odd = `${dir}/it's $(here) & \`there\``;
    execFileSync('mkdir', ['-p', odd]);
    const command = resumeCommand('claude-code', 'x', odd)!.replace(/ && claude --resume x$/, ' && pwd');
    expect(execFileSync('sh', ['-c', command], { encoding: 'utf8' }).trim()).toBe(odd);
  });
});
