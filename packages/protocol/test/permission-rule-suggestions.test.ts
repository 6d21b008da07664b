// The rules a permission card offers to remember, from tool calls shaped as the real adapters send
// them (Claude Code, Codex, Gemini CLI): the command's first words or the tool, each one a rule
// that answers the very call it came from, and never a command rule for a chained command line.
import { describe, expect, it } from 'vitest';
import { matchPermissionRules, parsePermissionRule, suggestPermissionRules } from '../src/index.js';

const project = '/home/ana/project';
const rulesOf = (call: Parameters<typeof suggestPermissionRules>[0]) =>
  suggestPermissionRules(call, project).map((s) => `${s.scope}:${s.rule}`);

describe('the rules a card offers', () => {
  it("takes a command's program and subcommand, and the agent's own tool name", () => {
    const claudeBash = (command: string) => ({
      kind: 'execute',
      title: command,
      rawInput: { command, description: 'Run it' },
      _meta: { claudeCode: { toolName: 'Bash' } },
    });
    expect(rulesOf(claudeBash('npm test -- --run'))).toEqual(['command:Bash(npm test*)', 'tool:Bash']);
    expect(rulesOf(claudeBash('git status'))).toEqual(['command:Bash(git status*)', 'tool:Bash']);
    // A path or a flag after the program is an argument, not a subcommand.
    expect(rulesOf(claudeBash(`touch ${project}/a.txt`))).toEqual(['command:Bash(touch*)', 'tool:Bash']);
    expect(rulesOf(claudeBash('ls -la'))).toEqual(['command:Bash(ls*)', 'tool:Bash']);
    expect(suggestPermissionRules(claudeBash('npm test'))[0]!.label).toBe(
      'Always allow this command in this project',
    );
  });

  it('offers no command rule for a chained command line, only the tool', () => {
    const chained = { kind: 'execute', title: 'x', rawInput: { command: 'npm test && rm -rf dist' } };
    expect(rulesOf(chained)).toEqual(['tool:Bash']);
    const piped = { kind: 'execute', title: 'x', rawInput: { command: 'cat a | sh' } };
    expect(rulesOf(piped)).toEqual(['tool:Bash']);
  });

  it("reads Codex's argv behind a shell and Gemini CLI's command in the title", () => {
    const codex = {
      kind: 'execute',
      title: 'Run',
      rawInput: { command: ['bash', '-lc', 'cargo build --release'] },
    };
    expect(rulesOf(codex)).toEqual(['command:Bash(cargo build*)', 'tool:Bash']);
    const gemini = { kind: 'execute', title: 'pytest -q', locations: [] };
    expect(rulesOf(gemini)).toEqual(['command:Bash(pytest*)', 'tool:Bash']);
  });

  it('offers the tool alone for a call that is not a command, and nothing for an unnamed one', () => {
    const write = {
      kind: 'edit',
      title: 'Write notes.txt',
      rawInput: { file_path: `${project}/notes.txt`, content: 'x\n' },
      _meta: { claudeCode: { toolName: 'Write' } },
    };
    expect(suggestPermissionRules(write, project)).toEqual([
      { scope: 'tool', rule: 'Write', label: 'Always allow Write in this project' },
    ]);
    expect(rulesOf({ kind: 'edit', title: 'Edit files' })).toEqual(['tool:Edit']);
    expect(rulesOf({ title: 'Something the agent asks' })).toEqual([]);
  });

  it('offers only rules that answer the call they came from', () => {
    const calls = [
      { kind: 'execute', title: 'make', rawInput: { command: 'make' } },
      { kind: 'fetch', title: 'Fetch https://example.org' },
      { kind: 'execute', title: 'npm run lint', rawInput: { command: 'npm run lint' }, name: 'shell' },
    ];
    for (const call of calls) {
      const offered = suggestPermissionRules(call, project);
      expect(offered.length).toBeGreaterThan(0);
      for (const s of offered) {
        const parsed = parsePermissionRule(s.rule, 'allow', 'project');
        expect(parsed.ok && matchPermissionRules([parsed.rule], call, project)?.text).toBe(s.rule);
      }
    }
  });
});
