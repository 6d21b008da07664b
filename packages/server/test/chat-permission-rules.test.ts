// Permission rules cairn remembers per workstation and project: the store on its own (kept, listed,
// revoked, each workstation's apart, an older file's taken over, and config.json's beside it), and the chat applying them over the real server and the scripted ACP
// agent: "always allow" on a card answers that request and the next one without a card, a line
// names the rule, a revoked rule brings the card back, and config.json's deny rejects.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { PermissionRuleStore } from '../src/chat/permission-rule-store.js';
import { tempDir } from './helpers.js';
import { chatServer, closeAll, type Ev } from './support/chat.js';

afterEach(closeAll);

const OPTIONS = [
  { optionId: 'yes', kind: 'allow_once' },
  { optionId: 'yes-always', kind: 'allow_always' },
  { optionId: 'no', kind: 'reject_once' },
];
const npmTest = { kind: 'execute', title: 'npm test', rawInput: { command: 'npm test -- --run' } };

describe('the permission rule store', () => {
  it('keeps rules per project folder, once each, and forgets a revoked one', () => {
    const home = tempDir();
    const store = new PermissionRuleStore(join(home, 'chat.sqlite'), home);
    const kept = store.remember('local', '/p/one', 'allow', ' Bash(npm test*) ');
    expect(kept).toMatchObject({
      workstation: 'local',
      projectPath: '/p/one',
      effect: 'allow',
      rule: 'Bash(npm test*)',
    });
    expect(store.remember('local', '/p/one', 'allow', 'Bash(npm test*)').id).toBe(kept.id);
    store.remember('local', '/p/two', 'allow', 'Write');
    expect(store.list().map((r) => [r.projectPath, r.rule])).toEqual([
      ['/p/one', 'Bash(npm test*)'],
      ['/p/two', 'Write'],
    ]);
    // A rule applies in its own project only.
    expect(store.decide('local', '/p/one', npmTest, OPTIONS)).toEqual({
      optionId: 'yes',
      applied: { rule: 'Bash(npm test*)', effect: 'allow', source: 'project' },
    });
    expect(store.decide('local', '/p/two', npmTest, OPTIONS)).toBeUndefined();
    expect(() => store.remember('local', '/p/one', 'allow', 'Bash(')).toThrow(
      /'Bash\(' is not a permission rule/,
    );
    expect(store.revoke(kept.id)).toBe(true);
    expect(store.revoke(kept.id)).toBe(false);
    expect(store.decide('local', '/p/one', npmTest, OPTIONS)).toBeUndefined();
    store.close();
    // Kept on disk: a new store (a restarted daemon) has what was left.
    const again = new PermissionRuleStore(join(home, 'chat.sqlite'), home);
    expect(again.list().map((r) => r.rule)).toEqual(['Write']);
    again.close();
  });

  it('applies a rule only on the workstation it was kept for, though another holds the same folder', () => {
    const store = new PermissionRuleStore(':memory:', undefined);
    const olga = store.remember('olga-box', '/home/dev/app', 'allow', 'Bash(npm test*)');
    expect(store.decide('olga-box', '/home/dev/app', npmTest, OPTIONS)?.optionId).toBe('yes');
    // Another machine's agent in a folder of the same path is asked.
    expect(store.decide('mike-box', '/home/dev/app', npmTest, OPTIONS)).toBeUndefined();
    expect(store.decide('local', '/home/dev/app', npmTest, OPTIONS)).toBeUndefined();
    // The same rule kept for the other machine is a rule of its own, listed by workstation.
    const mike = store.remember('mike-box', '/home/dev/app', 'allow', 'Bash(npm test*)');
    expect(mike.id).not.toBe(olga.id);
    expect(store.list().map((r) => r.workstation)).toEqual(['mike-box', 'olga-box']);
    expect(store.revoke(olga.id)).toBe(true);
    expect(store.decide('olga-box', '/home/dev/app', npmTest, OPTIONS)).toBeUndefined();
    expect(store.decide('mike-box', '/home/dev/app', npmTest, OPTIONS)?.optionId).toBe('yes');
    store.close();
  });

  it("takes over a file kept before rules were per workstation: its rules become the daemon's own machine's", () => {
    const home = tempDir();
    const path = join(home, 'chat.sqlite');
    const old = new Database(path);
    old.exec(`CREATE TABLE permission_rules (
      id TEXT PRIMARY KEY, project_path TEXT NOT NULL, effect TEXT NOT NULL, rule TEXT NOT NULL,
      created_at INTEGER NOT NULL, UNIQUE (project_path, effect, rule))`);
    const insert = old.prepare('INSERT INTO permission_rules VALUES (?, ?, ?, ?, ?)');
    insert.run('r2', '/p', 'deny', 'Bash(rm *)', 5);
    insert.run('r1', '/p', 'allow', 'Bash(npm test*)', 5);
    old.close();
    const store = new PermissionRuleStore(path, undefined);
    expect(
      store.list().map((r) => [r.id, r.workstation, r.projectPath, r.effect, r.rule, r.createdAt]),
    ).toEqual([
      ['r2', 'local', '/p', 'deny', 'Bash(rm *)', 5],
      ['r1', 'local', '/p', 'allow', 'Bash(npm test*)', 5],
    ]);
    expect(store.decide('local', '/p', npmTest, OPTIONS)?.optionId).toBe('yes');
    expect(store.decide('elsewhere', '/p', npmTest, OPTIONS)).toBeUndefined();
    store.remember('elsewhere', '/p', 'allow', 'Bash(npm test*)');
    store.close();
    // Opened again, the file is as this store keeps it: nothing is taken over twice.
    const again = new PermissionRuleStore(path, undefined);
    expect(again.list().map((r) => r.workstation)).toEqual(['elsewhere', 'local', 'local']);
    again.close();
  });

  it("applies config.json's rules beside the project's, a deny beating an allow, and says when the file is bad", () => {
    const home = tempDir();
    const lines: string[] = [];
    const store = new PermissionRuleStore(':memory:', home, (line) => lines.push(line));
    store.remember('local', '/p', 'allow', 'Bash(npm *)');
    writeFileSync(join(home, 'config.json'), JSON.stringify({ permissions: { deny: ['Bash(npm test*)'] } }));
    expect(store.decide('local', '/p', npmTest, OPTIONS)).toEqual({
      optionId: 'no',
      applied: { rule: 'Bash(npm test*)', effect: 'deny', source: 'config.json' },
    });
    expect(store.reply().config).toEqual({ rules: [{ effect: 'deny', rule: 'Bash(npm test*)' }] });
    // A config that does not read leaves the project's rules working, and the reason is told.
    writeFileSync(join(home, 'config.json'), JSON.stringify({ permissions: { allow: [42] } }));
    expect(store.decide('local', '/p', npmTest, OPTIONS)?.applied.source).toBe('project');
    expect(store.reply().config.problem).toMatch(/permissions\.allow\[0\] must be a string/);
    expect(lines.some((l) => l.includes('permissions.allow[0]'))).toBe(true);
    // No option to allow with: the page is asked.
    expect(store.decide('local', '/p', npmTest, [{ optionId: 'no', kind: 'reject_once' }])).toBeUndefined();
    store.close();
  });
});

describe('the chat answering by remembered rules', () => {
  it('remembers "always allow" from a card, answers the next request by it with a line, and asks again once revoked', async () => {
    const c = await chatServer({ WIRE_AGENT_MODE: 'permission', WIRE_AGENT_CHUNKS: '1' });
    const id = await c.newChat();
    const tab = await c.tab(id);
    await tab.ready();
    const texts = () => tab.events.filter((e) => e.type === 'text_delta').map((e) => e.delta as string);

    tab.send({ type: 'user_message', content: 'write it' });
    await tab.until(() => tab.count('permission_request') > 0, 'the first card');
    const asked = tab.events.find((e) => e.type === 'permission_request')!;
    // The agent's call is `Write notes.txt` of kind edit: the card offers to allow the tool.
    expect(asked.rememberable).toEqual([
      { scope: 'tool', rule: 'Edit', label: 'Always allow Edit in this project' },
    ]);
    // Only a rule the card offered is kept.
    tab.send({ type: 'permission_remember', requestId: asked.requestId, rule: '*' });
    await tab.until(() => tab.count('error') > 0, 'the refusal');
    expect(tab.events.find((e) => e.type === 'error')!.message).toMatch(/offered no rule \*/);
    tab.send({ type: 'permission_remember', requestId: asked.requestId, rule: 'Edit' });
    await tab.turnsEnded(1);
    expect(tab.events.find((e) => e.type === 'permission_settled')).toMatchObject({
      optionId: 'allow',
      by: 'answer',
    });
    expect(texts()).toContain('permission:allow');
    const listed = await c.api('GET', '/api/permission-rules');
    expect(listed.status).toBe(200);
    // Kept for the chat's own workstation: the daemon's machine.
    expect(listed.body.rules).toEqual([
      expect.objectContaining({
        workstation: 'local',
        projectPath: c.project,
        effect: 'allow',
        rule: 'Edit',
      }),
    ]);
    // Kept in cairn's own state, nowhere else.
    expect(readFileSync(join(c.cairnHome, 'config.json'), 'utf8')).not.toContain('Edit');

    tab.send({ type: 'user_message', content: 'write it again' });
    await tab.turnsEnded(2);
    expect(tab.count('permission_request')).toBe(1);
    const line = tab.events.find((e) => e.type === 'permission_rule_applied')!;
    expect(line).toMatchObject({
      toolCall: { title: 'Write notes.txt', kind: 'edit' },
      optionId: 'allow',
      applied: { rule: 'Edit', effect: 'allow', source: 'project' },
    });
    expect(texts().filter((t) => t === 'permission:allow')).toHaveLength(2);
    // A reload shows the line again: the settled request keeps the rule that answered it.
    const later = await c.tab(id);
    const ready = await later.ready();
    expect(ready.settledPermissions.map((s: Ev) => s.rule ?? null)).toEqual([
      null,
      { rule: 'Edit', effect: 'allow', source: 'project' },
    ]);

    const revoked = await c.api('DELETE', `/api/permission-rules?id=${listed.body.rules[0].id}`);
    expect(revoked).toEqual({ status: 200, body: { ok: true } });
    expect((await c.api('DELETE', `/api/permission-rules?id=${listed.body.rules[0].id}`)).status).toBe(404);
    tab.send({ type: 'user_message', content: 'and once more' });
    await tab.until(() => tab.count('permission_request') > 1, 'the card again');
    expect(tab.count('permission_rule_applied')).toBe(1);
    const third = tab.events.filter((e) => e.type === 'permission_request').at(-1)!;
    tab.send({ type: 'permission_answer', requestId: third.requestId, optionId: 'reject' });
    await tab.turnsEnded(3);
    expect(texts().at(-1)).toBe('permission:reject');
  });

  it('asks, though a rule covers the call, when the rule was kept for another workstation', async () => {
    const c = await chatServer({ WIRE_AGENT_MODE: 'permission', WIRE_AGENT_CHUNKS: '1' });
    // Another machine's folder of the same path: its rule is not this machine's.
    const away = await c.api('POST', '/api/permission-rules', {
      workstation: 'olga-box',
      projectPath: c.project,
      rule: 'Edit',
    });
    expect(away.status).toBe(200);
    expect(away.body.rule).toMatchObject({ workstation: 'olga-box', projectPath: c.project, rule: 'Edit' });
    const bad = await c.api('POST', '/api/permission-rules', {
      workstation: '../x',
      projectPath: c.project,
      rule: 'Edit',
    });
    expect(bad).toEqual({
      status: 400,
      body: { error: 'workstation must be the name of a workstation, such as local' },
    });
    const tab = await c.tab(await c.newChat());
    await tab.ready();
    tab.send({ type: 'user_message', content: 'write it' });
    await tab.until(() => tab.count('permission_request') > 0, 'the card');
    expect(tab.count('permission_rule_applied')).toBe(0);
    const asked = tab.events.find((e) => e.type === 'permission_request')!;
    tab.send({ type: 'permission_answer', requestId: asked.requestId, optionId: 'reject' });
    await tab.turnsEnded(1);
    // Kept for this machine too, the same rule answers here.
    const here = await c.api('POST', '/api/permission-rules', { projectPath: c.project, rule: 'Edit' });
    expect(here.body.rule).toMatchObject({ workstation: 'local' });
    tab.send({ type: 'user_message', content: 'write it again' });
    await tab.turnsEnded(2);
    expect(tab.count('permission_request')).toBe(1);
    expect(tab.events.find((e) => e.type === 'permission_rule_applied')).toMatchObject({
      applied: { rule: 'Edit', effect: 'allow', source: 'project' },
    });
  });

  it("rejects by config.json's deny rule, read as the file is now, and takes rules from the API", async () => {
    const c = await chatServer({ WIRE_AGENT_MODE: 'permission', WIRE_AGENT_CHUNKS: '1' });
    const config = JSON.parse(readFileSync(join(c.cairnHome, 'config.json'), 'utf8'));
    writeFileSync(
      join(c.cairnHome, 'config.json'),
      JSON.stringify({ ...config, permissions: { deny: ['Write'] } }),
    );
    const added = await c.api('POST', '/api/permission-rules', { projectPath: c.project, rule: 'Write' });
    expect(added.status).toBe(200);
    const bad = await c.api('POST', '/api/permission-rules', { projectPath: c.project, rule: 'Write(' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/is not a permission rule/);
    const tab = await c.tab(await c.newChat());
    await tab.ready();
    tab.send({ type: 'user_message', content: 'write it' });
    await tab.turnsEnded(1);
    expect(tab.count('permission_request')).toBe(0);
    // The project allows the tool and config.json denies it: the deny wins.
    expect(tab.events.find((e) => e.type === 'permission_rule_applied')).toMatchObject({
      optionId: 'reject',
      applied: { rule: 'Write', effect: 'deny', source: 'config.json' },
    });
    expect(tab.events.filter((e) => e.type === 'text_delta').map((e) => e.delta)).toContain(
      'permission:reject',
    );
    expect((await c.api('GET', '/api/permission-rules')).body.config).toEqual({
      rules: [{ effect: 'deny', rule: 'Write' }],
    });
  });
});
