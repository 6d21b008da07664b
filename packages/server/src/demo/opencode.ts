// The demo sessions of OpenCode and Kilo: the JSON storage tree (session, message and part files).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clock, PROJECT } from './records.js';

export function writeOpenCodeSession(home: string, start: number, name: 'opencode' | 'kilo'): string[] {
  const storage = join(home, '.local', 'share', name, 'storage');
  const id = 'ses_demo0000000001';
  const tick = clock(start);
  const written: string[] = [];
  const put = (rel: string[], value: object) => {
    const path = join(storage, ...rel);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
    written.push(path);
  };
  const model = { providerID: 'anthropic', modelID: 'claude-sonnet-4-5' };
  const created = tick(0);
  put(['session', 'proj_demo', `${id}.json`], {
    id,
    slug: 'quiet-river',
    version: '1.2.10',
    projectID: 'proj_demo',
    directory: PROJECT,
    title: 'Cache the forecast for ten minutes',
    time: { created, updated: created + 40_000 },
  });
  const user = 'msg_demo0000000001';
  const answer = 'msg_demo0000000002';
  put(['message', id, `${user}.json`], {
    id: user,
    sessionID: id,
    role: 'user',
    time: { created: tick() },
    agent: 'build',
    model,
  });
  const asked = tick();
  const done = asked + 20_000;
  put(['message', id, `${answer}.json`], {
    id: answer,
    sessionID: id,
    role: 'assistant',
    time: { created: asked, completed: done },
    parentID: user,
    mode: 'build',
    path: { cwd: PROJECT, root: PROJECT },
    cost: 0.0121,
    tokens: { input: 812, output: 96, reasoning: 40, cache: { read: 11_200, write: 1_350 } },
    finish: 'stop',
    ...model,
  });
  const part = (message: string, n: number, value: object) =>
    put(['part', message, `prt_demo00000000${n}.json`], {
      id: `prt_demo00000000${n}`,
      sessionID: id,
      messageID: message,
      ...value,
    });
  part(user, 1, {
    type: 'text',
    text: 'Cache the forecast responses for ten minutes so repeated runs stay fast.',
  });
  part(answer, 2, { type: 'step-start' });
  part(answer, 3, {
    type: 'reasoning',
    text: 'The HTTP client is in src/api.ts; a small file cache keyed by URL will do.',
    time: { start: asked + 1_000, end: asked + 2_000 },
  });
  part(answer, 4, {
    type: 'tool',
    callID: 'toolu_demo_oc_grep',
    tool: 'grep',
    state: {
      status: 'completed',
      input: { pattern: 'fetch\\(', path: 'src' },
      output: 'src/api.ts:\n  Line 14: const res = await fetch(url);',
      title: 'fetch\\(',
      metadata: { matches: 1 },
      time: { start: asked + 3_000, end: asked + 3_400 },
    },
  });
  part(answer, 5, {
    type: 'text',
    text: 'The only network call is `fetch(url)` in src/api.ts (line 14); I will wrap it with a ten-minute cache.',
    time: { start: asked + 4_000, end: done },
  });
  part(answer, 6, {
    type: 'step-finish',
    reason: 'stop',
    cost: 0.0121,
    tokens: { input: 812, output: 96, reasoning: 40, cache: { read: 11_200, write: 1_350 } },
  });
  return written;
}
