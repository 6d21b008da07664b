// A turn's error read back from pi's session file, past a mark taken as the turn starts: the corpus
// sample copied into a scratch home laid out as pi's own, then grown a turn at a time with entries
// in pi's shape (a refused request is an assistant message with `stopReason: "error"` and the
// provider's status and message). Only what was written after the mark counts, the file's header
// still has to be read, and the file itself is never written by the reader.
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { markTurnErrors, markTurnErrorsOnNode } from '../src/index.js';
import { nodePlatform } from '../src/platform-node.js';
import { corpus, corpusPath } from './corpus.js';

const SID = '019e19b4-eb48-746a-aa6b-8dfcfa37954b';
const QUOTA = '429 You exceeded your current quota, please check your plan and billing details.';
const homes: string[] = [];

afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

/** A scratch home; the sample is copied into it as pi lays a session out, unless `empty`. */
function piHome(empty = false): { home: string; file: string } {
  const home = mkdtempSync(join(tmpdir(), 'cairn-pi-turn-errors-'));
  homes.push(home);
  const dir = join(home, '.pi', 'agent', 'sessions', '--tmp-as-agent-fixture-project--');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `2026-05-12T01-02-27-657Z_${SID}.jsonl`);
  if (!empty) cpSync(corpusPath('more', 'pi', 'small.jsonl'), file);
  return { home, file };
}

let entries = 0;
const entry = (body: Record<string, unknown>): string =>
  `${JSON.stringify({ id: `e${++entries}`, parentId: null, timestamp: new Date().toISOString(), ...body })}\n`;
const prompt = (text: string) =>
  entry({
    type: 'message',
    message: { role: 'user', content: [{ type: 'text', text }], timestamp: Date.now() },
  });
const answer = (text: string) =>
  entry({
    type: 'message',
    message: {
      role: 'assistant',
      content: [{ type: 'text', text }],
      stopReason: 'stop',
      timestamp: Date.now(),
    },
  });
const refused = (errorMessage: string) =>
  entry({
    type: 'message',
    message: {
      role: 'assistant',
      content: [],
      api: 'openai-completions',
      provider: 'fake',
      model: 'fake-model',
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
      stopReason: 'error',
      errorMessage,
      timestamp: Date.now(),
    },
  });

const mark = (home: string) => markTurnErrors(nodePlatform({ env: {}, homeDir: home }), 'pi', SID);

describe.skipIf(!corpus)("a turn's error read back from pi's session file", () => {
  it('finds the error a turn ended on, in the provider words', async () => {
    const { home, file } = piHome();
    const check = await mark(home);
    appendFileSync(file, prompt('Go on.') + refused(QUOTA));
    expect(await check()).toBe(QUOTA);
  });

  it('takes no error for the turn when the turn wrote none, even right after one', async () => {
    const { home, file } = piHome();
    appendFileSync(file, prompt('Go on.') + refused(QUOTA));
    // The file ends with an error of the turn before: nothing written since, nothing to say.
    const quiet = await mark(home);
    expect(await quiet()).toBeUndefined();
    // Only the prompt written so far: the turn has not failed.
    const asked = await mark(home);
    appendFileSync(file, prompt('Again.'));
    expect(await asked()).toBeUndefined();
  });

  it('takes an answer that came after an error as the end of the turn', async () => {
    const { home, file } = piHome();
    const check = await mark(home);
    appendFileSync(
      file,
      prompt('Go on.') + refused('429 Rate limit reached for requests.') + answer('Done.'),
    );
    expect(await check()).toBeUndefined();
  });

  it('reads a session whose file appeared only during the turn, header and all', async () => {
    const { home, file } = piHome(true);
    const check = await mark(home);
    writeFileSync(
      file,
      readFileSync(corpusPath('more', 'pi', 'small.jsonl'), 'utf8') + prompt('Go on.') + refused(QUOTA),
    );
    expect(await check()).toBe(QUOTA);
  });

  it('says nothing of a file that was replaced by a shorter one', async () => {
    const { home, file } = piHome();
    appendFileSync(file, prompt('Go on.') + answer('Done.'));
    const check = await mark(home);
    writeFileSync(file, `${readFileSync(corpusPath('more', 'pi', 'small.jsonl'), 'utf8').split('\n')[0]}\n`);
    expect(await check()).toBeUndefined();
  });

  it('leaves the file as it was', async () => {
    const { home, file } = piHome();
    const check = await markTurnErrorsOnNode({ env: { HOME: home }, agent: 'pi', sessionId: SID });
    appendFileSync(file, prompt('Go on.') + refused(QUOTA));
    const before = readFileSync(file);
    expect(await check()).toBe(QUOTA);
    expect(readFileSync(file)).toEqual(before);
  });

  it('refuses an agent whose store it cannot read a turn at a time', async () => {
    const { home } = piHome();
    await expect(markTurnErrors(nodePlatform({ env: {}, homeDir: home }), 'codex', SID)).rejects.toThrow(
      /codex cannot be read back a turn at a time/,
    );
  });
});
