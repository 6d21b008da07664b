// The homes are followed with one watch per folder, not per file: an append to a file in a watched
// folder is still noticed, and so is a session written into a folder made after the start, however
// deep, or into a folder removed and made again; folders that hold no sessions are left alone.
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import type { RunningServer } from '../src/index.js';
import { Watcher } from '../src/reader/watcher.js';
import { Client, claudeSessionHome, homeEnv, itemsSeen, serve, tempDir } from './helpers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the folder watcher', () => {
  let watcher: Watcher | undefined;
  afterEach(() => watcher?.close());

  /** A watcher on `root` (its walks never come round) and every path it noticed. */
  function watch(root: string): Set<string> {
    const noticed = new Set<string>();
    watcher = new Watcher({
      roots: [root],
      rescanMs: 60_000,
      quietMs: 5,
      maxWaitMs: 20,
      onChange: (paths) => {
        for (const p of paths) noticed.add(p);
      },
      onRescan: () => {},
    });
    watcher.start();
    return noticed;
  }

  async function until(check: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 5_000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`not noticed: ${what}`);
      await sleep(10);
    }
  }

  it('watches each folder once, not each file, and leaves folders without sessions alone', async () => {
    const root = tempDir();
    for (const project of ['a', 'b', 'c']) {
      mkdirSync(join(root, project, 'tool-results'), { recursive: true });
      for (let i = 0; i < 5; i++) writeFileSync(join(root, project, `s${i}.jsonl`), '{}\n');
      for (let i = 0; i < 5; i++) writeFileSync(join(root, project, 'tool-results', `r${i}.txt`), 'x');
    }
    watch(root);
    await watcher!.attached();
    // The root and its three project folders; not the 15 files, nor the tool results.
    expect(watcher!.foldersWatched).toBe(4);
  });

  it('notices an append to a file in a watched folder', async () => {
    const root = tempDir();
    mkdirSync(join(root, 'project'));
    const file = join(root, 'project', 'session.jsonl');
    writeFileSync(file, '{}\n');
    const noticed = watch(root);
    await watcher!.attached();
    expect(watcher!.foldersWatched).toBe(2);
    appendFileSync(file, '{}\n');
    await until(() => noticed.has(file), file);
  });

  it('notices a session written into folders made after the start, and its appends', async () => {
    const root = tempDir();
    const noticed = watch(root);
    await watcher!.attached();
    expect(watcher!.foldersWatched).toBe(1);
    // Made at once, deeper than one level: the inner folders exist before their watch can begin.
    const dir = join(root, 'new-project', 'sid', 'subagents');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'agent-1.jsonl');
    writeFileSync(file, '{}\n');
    await until(() => noticed.has(file), file);
    expect(watcher!.foldersWatched).toBe(4);
    noticed.clear();
    appendFileSync(file, '{}\n');
    await until(() => noticed.has(file), `${file} appended to`);
  });

  it('follows a folder removed and made again under the same path', async () => {
    const root = tempDir();
    const dir = join(root, 'project');
    mkdirSync(dir);
    const noticed = watch(root);
    await watcher!.attached();
    expect(watcher!.foldersWatched).toBe(2);
    rmSync(dir, { recursive: true });
    await until(() => watcher!.foldersWatched === 1, 'the removed folder let go');
    mkdirSync(dir);
    const file = join(dir, 'session.jsonl');
    writeFileSync(file, '{}\n');
    await until(() => noticed.has(file), file);
    await until(() => watcher!.foldersWatched === 2, 'the folder watched again');
    noticed.clear();
    appendFileSync(file, '{}\n');
    await until(() => noticed.has(file), `${file} appended to`);
  });
});

describe.skipIf(!corpus)('the daemon following folders', () => {
  let server: RunningServer;
  let home: string;

  beforeAll(async () => {
    ({ home } = claudeSessionHome(10));
    // No interval walk during the test: whatever is seen comes from the watches.
    server = await serve(homeEnv(home), { rescanMs: 600_000 });
  });
  afterAll(() => server?.close());

  it('lists a session written into a new project folder and streams what is appended to it', async () => {
    const c = await Client.open(server);
    await c.request('topic_subscribe', { topic: 'sessions' });
    const lines = readFileSync(corpusPath('claude', 'projects', '-work-spotter', 'subagent.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    const dir = join(home, '.claude', 'projects', '-work-elsewhere');
    mkdirSync(dir);
    const file = join(dir, 'elsewhere.jsonl');
    writeFileSync(file, `${lines.slice(0, 20).join('\n')}\n`);
    await c.until((f) =>
      f.some((x) => x.type === 'session_upserted' && (x.head as { sid: string }).sid === 'elsewhere'),
    );
    const topic = 'session:claude-code:elsewhere';
    expect(await c.request('topic_subscribe', { topic })).toMatchObject({ ok: true });
    await c.until((f) => f.some((x) => x.type === 'transcript_ready'));
    const before = itemsSeen(c.frames).length;
    appendFileSync(file, `${lines.slice(20, 40).join('\n')}\n`);
    await c.until((f) => itemsSeen(f).length > before);
    expect(itemsSeen(c.frames).length).toBeGreaterThan(before);
    await c.close();
  });
});
