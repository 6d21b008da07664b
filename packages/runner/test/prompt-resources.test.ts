// The files a prompt carries, as the agent gets them: embedded text for an agent that takes
// embedded context (small UTF-8 text only), a link otherwise; a file outside the session folder, or
// gone, is left out and said in the log.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_EMBEDDED_FILE_BYTES, resourceBlocks } from '../src/prompt-resources.js';

let scratch: string;
let cwd: string;
const at = (path: string) => ({ uri: pathToFileURL(join(cwd, path)).href, name: path });

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'cairn-resources-'));
  cwd = join(scratch, 'project');
  mkdirSync(cwd);
  writeFileSync(join(cwd, 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(cwd, 'logo.bin'), Buffer.from([0x89, 0x50, 0x00, 0x01]));
  writeFileSync(join(cwd, 'big.txt'), 'x'.repeat(MAX_EMBEDDED_FILE_BYTES + 1));
  writeFileSync(join(scratch, 'secret.txt'), 'outside');
  symlinkSync(join(scratch, 'secret.txt'), join(cwd, 'secret.txt'));
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the files of a prompt', () => {
  it('embeds small text for an agent that takes embedded context, and links the rest', async () => {
    const log: string[] = [];
    const blocks = await resourceBlocks([at('a.ts'), at('logo.bin'), at('big.txt')], cwd, true, (l) =>
      log.push(l),
    );
    expect(blocks).toEqual([
      {
        type: 'resource',
        resource: { uri: at('a.ts').uri, text: 'export const a = 1;\n', mimeType: 'text/plain' },
      },
      { type: 'resource_link', uri: at('logo.bin').uri, name: 'logo.bin' },
      { type: 'resource_link', uri: at('big.txt').uri, name: 'big.txt' },
    ]);
    expect(log).toEqual([]);
  });

  it('links every file for an agent that takes no embedded context', async () => {
    expect(await resourceBlocks([at('a.ts')], cwd, false, () => {})).toEqual([
      { type: 'resource_link', uri: at('a.ts').uri, name: 'a.ts' },
    ]);
  });

  it('leaves out a file outside the folder, or gone, and says so', async () => {
    const log: string[] = [];
    const outside = { uri: pathToFileURL(join(scratch, 'secret.txt')).href, name: '../secret.txt' };
    const blocks = await resourceBlocks([outside, at('secret.txt'), at('gone.ts')], cwd, true, (l) =>
      log.push(l),
    );
    expect(blocks).toEqual([]);
    expect(log).toEqual([
      'workstation: attached file ../secret.txt is outside the session folder: left out',
      'workstation: attached file secret.txt is outside the session folder: left out',
      'workstation: attached file gone.ts is not there: left out',
    ]);
  });
});
