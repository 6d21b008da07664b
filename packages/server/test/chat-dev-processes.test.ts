// Dev processes: commands an agent runs through the ACP terminal capability, which cairn advertises.
// They run in the session's project, reach every tab as dev processes with a bounded output tail,
// give the agent its output within its byte limit, and can be ended from a tab. The scripted agent
// (built with the SDK) asks for them: none of the real adapters here uses the capability.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chatServer, closeAll } from './support/chat.js';

afterEach(closeAll);

/** A chat with the scripted agent, and tabs on it that also read the reply's text. */
async function chat() {
  const c = await chatServer();
  const id = await c.newChat();
  const tab = async () => {
    const t = await c.tab(id);
    await t.ready();
    const of = (type: string) => t.events.filter((e) => e.type === type);
    const text = () =>
      of('text_delta')
        .map((e) => e.delta)
        .join('');
    return { ...t, of, text };
  };
  return { ...c, tab };
}

describe('dev processes', () => {
  it('runs a command in the project, hands the agent its output within its byte limit, and reports it', async () => {
    const c = await chat();
    const tab = await c.tab();
    // 120 bytes of output where the agent keeps 64: the start is cut, at a character boundary.
    tab.send({
      type: 'user_message',
      content: `wait: pwd > where.txt; printf 'é%.0s' $(seq 60); echo; echo done; exit 3`,
    });
    await tab.until(() => tab.of('agent_end').length > 0, 'the turn');
    expect(readFileSync(join(c.project, 'where.txt'), 'utf8').trim()).toBe(c.project);
    const reply = tab.text();
    expect(reply).toMatch(/^exit:3 truncated:true output:/);
    const output = reply.slice(reply.indexOf('output:') + 'output:'.length);
    expect(Buffer.byteLength(output)).toBeLessThanOrEqual(64);
    expect(output).toMatch(/^é+\ndone\n$/);

    const changes = tab.of('dev_processes_changed');
    expect(changes.map((e) => e.change)).toEqual(['started', 'exited']);
    const ended = changes[1]!.process;
    expect(ended).toMatchObject({ status: 'exited', exitCode: 3, cwd: c.project });
    expect(ended.command).toContain('pwd > where.txt');
    // The whole output, beyond the agent's limit, is in the log file the summary names.
    expect(readFileSync(ended.fullOutputPath, 'utf8')).toBe(`${'é'.repeat(60)}\ndone\n`);
    expect(ended.fullOutputPath.startsWith(c.cairnHome)).toBe(true);
    expect(
      tab
        .of('dev_process_output')
        .map((e) => e.chunk)
        .join(''),
    ).toBe(`${'é'.repeat(60)}\ndone\n`);
  });

  it('keeps a server the agent left running, streams its output to every tab, and ends it from a tab', async () => {
    const c = await chat();
    const one = await c.tab();
    const two = await c.tab();
    const server = `echo listening; while true; do echo tick; sleep 0.05; done`;
    one.send({ type: 'user_message', content: `run: ${server}` });
    await one.until(() => one.of('agent_end').length > 0, 'the turn');
    expect(one.text()).toMatch(/^started:term-/);
    for (const tab of [one, two]) {
      await tab.until(() => tab.of('dev_process_output').some((e) => e.tail.includes('tick')), 'output');
    }
    const started = one.of('dev_processes_changed')[0]!;
    expect(started).toMatchObject({ change: 'started', process: { status: 'running' } });
    const { pid } = started.process;
    expect(() => process.kill(pid, 0)).not.toThrow();

    // A tab that opens now is shown the process, with its tail.
    const three = await c.tab();
    const ready = three.of('session_ready')[0]!;
    expect(ready.devProcesses).toHaveLength(1);
    expect(ready.devProcesses[0]).toMatchObject({ id: started.processId, status: 'running' });
    expect(ready.devProcesses[0].lastOutputTail).toContain('listening');

    two.send({ type: 'dev_process_kill', processId: started.processId });
    for (const tab of [one, two, three]) {
      await tab.until(() => tab.of('dev_processes_changed').some((e) => e.change === 'killed'), 'killed');
    }
    const killed = one.of('dev_processes_changed').find((e) => e.change === 'killed')!;
    expect(killed.process.status).toBe('killed');
    expect(() => process.kill(pid, 0)).toThrow();
    // The tail stays bounded however long it ran.
    const tails = one.of('dev_process_output').map((e) => e.tail.length);
    expect(Math.max(...tails)).toBeLessThanOrEqual(4096);

    // Killing it again, or a process that does not exist, is an error message, nothing else.
    one.send({ type: 'dev_process_kill', processId: started.processId });
    await one.until(() => one.of('error').length > 0, 'the refusal');
    expect(one.of('error')[0]!.message).toMatch(/no running dev process/);
  });

  it('ends what is still running when the server stops', async () => {
    const c = await chat();
    const tab = await c.tab();
    tab.send({ type: 'user_message', content: 'run: while true; do sleep 0.05; done' });
    await tab.until(() => tab.of('dev_processes_changed').length > 0, 'the start');
    const { pid } = tab.of('dev_processes_changed')[0]!.process;
    expect(() => process.kill(pid, 0)).not.toThrow();
    await c.server.close();
    expect(() => process.kill(pid, 0)).toThrow();
  });

  it('refuses an empty command, a relative folder and a missing one with errors the agent sees, and goes on', async () => {
    const c = await chat();
    const tab = await c.tab();
    const asks = ['wait: ', 'wait in relative/dir: echo hi', `wait in ${join(c.project, 'gone')}: echo hi`];
    for (const [i, content] of asks.entries()) {
      tab.send({ type: 'user_message', content });
      await tab.until(() => tab.of('agent_end').length > i, `turn ${i + 1}`);
    }
    const replies = tab.text();
    expect(replies).toContain('refused:Invalid params: command must be a non-empty string');
    expect(replies).toContain('refused:Invalid params: cwd must be an absolute path, got "relative/dir"');
    expect(replies).toMatch(/refused:Invalid params: cwd \S+gone is not a folder/);
    expect(tab.of('dev_processes_changed')).toEqual([]);
    tab.send({ type: 'user_message', content: 'wait: echo fine' });
    await tab.until(() => tab.of('agent_end').length > 3, 'the last turn');
    expect(tab.text()).toContain('exit:0 truncated:false output:fine\n');
    expect(existsSync(join(c.project, 'gone'))).toBe(false);
  });
});
