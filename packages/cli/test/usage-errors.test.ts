// Whatever a command does not take is a usage error (exit 2) in cairn's words: it names what was
// wrong and what is accepted, and nothing is printed on stdout as if the command had run.
import { describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import { cairn, corpusEnv } from './run.js';

const FA = 'fa812bfe';

describe.skipIf(!corpus)('cairn usage errors', () => {
  const env = corpusEnv();

  const usageError = (args: string[]) => {
    const r = cairn(args, env);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    // Node's own parser words never reach the user.
    expect(r.stderr).not.toMatch(/ERR_PARSE_ARGS|To specify an option argument|Unknown option '/);
    expect(r.stderr).toContain('usage: cairn');
    return r.stderr;
  };

  it.each([
    [['sessions', '--agent', 'foo']],
    [['summary', '--all', '--agent', 'foo']],
    [['summary', FA, '--agent', 'foo']],
    [['show', FA, '--agent', 'foo']],
    [['dump', FA, '--agent', 'foo']],
  ])('%j: an unknown agent names the agents cairn reads', (args) => {
    const stderr = usageError(args);
    expect(stderr).toContain(`cairn ${args[0]}: unknown agent 'foo'`);
    for (const known of ['claude-code (claude)', 'codex', 'gemini-cli (gemini)', 'opencode'])
      expect(stderr).toContain(known);
  });

  it.each([
    [['show', '--help'], 'cairn show <ref>'],
    [['dump', FA, '-h'], 'cairn dump <ref>'],
    [['workstation', '--help'], 'cairn workstation ticket'],
  ])('%j: prints that command’s part of the help on stdout', (args, entry) => {
    const r = cairn(args, env);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(entry);
    expect(r.stdout).toContain('A <ref> is');
    // Only that command's entries.
    expect(r.stdout).not.toContain('cairn sessions');
  });

  it('takes --help after `--` as a word, not as asking for help', () => {
    const stderr = usageError(['show', FA, '--', '--help']);
    expect(stderr).toContain("unexpected argument '--help'");
  });

  it('takes an agent by alias in any case', () => {
    const r = cairn(['sessions', '--agent', 'Claude', '--json'], env);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).sessions.length).toBeGreaterThan(0);
  });

  it.each([
    [['show', FA, '--types', 'bogus']],
    [['show', FA, '--types', 'tool,-bogus']],
    [['dump', FA, '--types', 'message:nobody']],
  ])('%j: an unknown item type names the types there are', (args) => {
    const stderr = usageError(args);
    expect(stderr).toMatch(/--types: '(bogus|message:nobody)' names no item type/);
    expect(stderr).toContain('message:user:in');
    expect(stderr).toContain('tool');
  });

  it('takes type prefixes, open families and exclusions', () => {
    const r = cairn(
      ['show', FA, '--types', 'message:user,tool:Bash,hook,-thinking,system:attachment:anything'],
      env,
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('message:user:in');
  });

  it.each([
    [
      'sessions',
      ['--bogus'],
      "unknown option '--bogus'",
      '--agent, --project, --since, --until, --limit, --tag, --starred, --json',
    ],
    ['summary', ['--all', '--frob'], "unknown option '--frob'", '--all, --agent, --json'],
    ['show', [FA, '-x'], "unknown option '-x'", '--types'],
    ['dump', [FA, '--fromat', 'md'], "unknown option '--fromat'", '--format'],
    ['presets', ['--verbose'], "unknown option '--verbose'", '--json'],
    ['url', ['--port', '1'], "unknown option '--port'", '--json'],
  ])('%s: an unknown option is named beside the options the command takes', (command, rest, wrong, takes) => {
    const stderr = usageError([command, ...rest]);
    expect(stderr).toContain(`cairn ${command}: ${wrong}; this command takes`);
    expect(stderr).toContain(takes);
  });

  it('says when a value is missing or given to a switch', () => {
    expect(usageError(['sessions', '--agent'])).toContain('--agent needs a value');
    expect(usageError(['sessions', '--agent', '--json'])).toContain('--agent needs a value');
    expect(usageError(['sessions', '--json=yes'])).toContain(
      "--json is a switch and takes no value (got 'yes')",
    );
  });

  it('takes values that start with a dash', () => {
    const r = cairn(['show', FA, '--types', '-thinking', '--since', '-100000d'], env);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).not.toMatch(/^\S+\s+\d*\s+\S?\s*thinking\b/m);
  });
});
