// `cairn show` prints an image as its note (`[image: image/png, 157 B]`), never as base64: the events
// of a session that holds a prompt's image and an MCP screenshot, and its items.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { homeEnv, tempHome } from '../../transcript/test/homes.js';
import { writeStructuredSession } from '../../transcript/test/support/structured-session.js';
import { cairn } from './run.js';

describe('images in cairn show', () => {
  const home = tempHome();
  const s = writeStructuredSession(join(home, '.claude'), '/home/dev/site');
  const env = { PATH: process.env.PATH, ...homeEnv(home), CAIRN_HOME: join(home, '.cairn') };
  const bytes = [s.promptImage, s.screenshot, s.svg].map((data) => data.slice(0, 24));

  it('notes them among the events', () => {
    const r = cairn(['show', s.path], env);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/make the page look like it\. \[image: image\/png, \d+ B\]/);
    expect(r.stdout).toContain('[image: image/svg+xml, ');
    expect(r.stdout).toMatch(/toolu_shot \{"url":"http:\/\/localhost:3000\/","title":"Dashboard"/);
    for (const b of bytes) expect(r.stdout).not.toContain(b);
  });

  it('notes them among the items', () => {
    const r = cairn(['show', s.path, '--types', 'message,tool'], env);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /message:user:in +Here is the mock-up; make the page look like it\. \[image: image\/png, \d+ B\]/,
    );
    expect(r.stdout).toContain('[image: image/png, ');
    for (const b of bytes) expect(r.stdout).not.toContain(b);
  });
});
