// Project files in a chat over the real server and a scripted agent: the files `@` lists for a
// session, and the files a prompt carries reaching the agent as links (this agent takes no embedded
// context), queued prompts included; a path out of the folder is refused with a message.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { chatServer, closeAll } from './support/chat.js';

afterEach(closeAll);

const deltas = (events: { type: string; delta?: unknown }[]) =>
  events.filter((e) => e.type === 'text_delta').map((e) => String(e.delta));

describe('project files in a chat', () => {
  it('lists the session folder’s files, and refuses an unknown session', async () => {
    const c = await chatServer({ WIRE_AGENT_CHUNKS: '1' });
    mkdirSync(join(c.project, 'src'), { recursive: true });
    mkdirSync(join(c.project, 'node_modules', 'x'), { recursive: true });
    writeFileSync(join(c.project, 'src', 'notes.txt'), 'notes');
    writeFileSync(join(c.project, 'node_modules', 'x', 'notes.js'), 'skip');
    const id = await c.newChat();
    const listed = await c.api('GET', `/api/sessions/files?session=${encodeURIComponent(id)}&query=notes`);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ files: ['src/notes.txt'], truncated: false });
    const unknown = await c.api('GET', '/api/sessions/files?session=nope');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/no chat session nope/);
    expect((await c.api('GET', '/api/sessions/files')).body.error).toMatch(/session is needed/);
  });

  it('hands the agent the files a prompt carries, queued or not, and refuses one outside the folder', async () => {
    const c = await chatServer({ WIRE_AGENT_CHUNKS: '20', WIRE_AGENT_DELAY_MS: '20' });
    mkdirSync(join(c.project, 'src'), { recursive: true });
    writeFileSync(join(c.project, 'src', 'a.ts'), 'export {};\n');
    writeFileSync(join(c.project, 'b.md'), '# b\n');
    const tab = await c.tab(await c.newChat());
    await tab.ready();
    const uri = (path: string) => pathToFileURL(join(c.project, path)).href;

    tab.send({ type: 'user_message', content: 'look at @src/a.ts', files: ['src/a.ts'] });
    // Sent while the first turn runs: it waits in the queue with its file.
    await tab.until(() => tab.count('text_delta') >= 2, 'the first turn running');
    tab.send({ type: 'user_message', content: 'and @b.md', files: ['b.md'] });
    await tab.turnsEnded(2);
    const said = deltas(tab.events);
    expect(said.filter((d) => d.startsWith('link:'))).toEqual([
      `link:src/a.ts:${uri('src/a.ts')} `,
      `link:b.md:${uri('b.md')} `,
    ]);
    // The message as the transcript keeps it: the text, with its mention.
    expect(
      tab.events.filter((e) => e.type === 'user_message_appended').map((e) => e.message.content),
    ).toEqual(['look at @src/a.ts', 'and @b.md']);

    tab.send({ type: 'user_message', content: 'steal', files: ['../../etc/passwd'] });
    await tab.until(
      () =>
        tab.events.some((e) => e.type === 'error' && /not a path inside the project folder/.test(e.message)),
      'the refusal',
    );
    const refusal = tab.events.find((e) => e.type === 'error')!;
    expect(refusal.message).toMatch(/the message was not sent/);
    expect(tab.events.filter((e) => e.type === 'user_message_appended')).toHaveLength(2);
  });
});
