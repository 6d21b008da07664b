// A Claude Code session whose main file is gone is listed and summed up by the CLI, and says so.
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { homeEnv, tempHome } from '../../transcript/test/homes.js';
import { cairn } from './run.js';

const SID = '4d5611e5-241a-462a-8d15-5122611a9569';

describe.skipIf(!corpus)('a session whose main file is gone', () => {
  const home = tempHome();
  const project = join(home, '.claude', 'projects', '-work-spotter');
  mkdirSync(project, { recursive: true });
  cpSync(corpusPath('claude', 'projects', '-work-spotter', SID), join(project, SID), { recursive: true });
  const env = { PATH: process.env.PATH, ...homeEnv(home), CAIRN_HOME: join(home, '.cairn') };

  it("is listed, and its summary counts its subagents' files and says the main file is gone", () => {
    const listed = cairn(['sessions'], env);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain(SID);
    const text = cairn(['summary', SID.slice(0, 8)], env);
    expect(text.status).toBe(0);
    expect(text.stdout).toContain("(gone: only its subagents' files remain)");
    expect(text.stdout).toMatch(/subagents\s+2/);
    const json = JSON.parse(cairn(['summary', SID, '--json'], env).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({
      id: SID,
      path: join(project, `${SID}.jsonl`),
      mainFileMissing: true,
      summary: { turns: 0, subagents: 2, outputTokens: 144 },
    });
  });
});
