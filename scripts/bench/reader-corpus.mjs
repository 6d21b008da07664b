// The reader bench's session: one Claude Code session of about 30 MB, made of the corpus's largest
// session repeated with ids rewritten per copy (so every record stays unique) under one session id,
// each copy's times moved past the one before so the session reads forward like a long working week.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentEnv, replicaId, rewrite } from './corpus.mjs';

const SOURCE = { project: '-work-spotter', sid: 'fa812bfe-b295-4cca-9c2f-fdf01028cb46' };
// A Read call of the first copy, early in the session: its result is a source file, highlighted.
const READ_CALL = '456f4a5d-9c97-4766-a1a7-c3ec148c0f41';
const TIMESTAMP = /"timestamp":"([^"]+)"/g;

/**
 * Writes the session into `work` (laid out as agents' homes) and returns where it is.
 * @returns {{ env: Record<string, string>, agent: string, sid: string, bytes: number, lines: number,
 *   codeItem: string }} codeItem: the uuid of a Read call whose result is code
 */
export function buildReaderSession({ source, work, targetBytes = 30 * 1024 * 1024 }) {
  const text = readFileSync(join(source, 'claude/projects', SOURCE.project, `${SOURCE.sid}.jsonl`), 'utf8');
  const times = [...text.matchAll(TIMESTAMP)].map((m) => Date.parse(m[1])).filter(Number.isFinite);
  const span = Math.max(...times) - Math.min(...times) + 60_000;
  const sid = replicaId(SOURCE.sid, 0xbe);
  const parts = [];
  let bytes = 0;
  for (let n = 1; bytes < targetBytes; n++) {
    const copy = rewrite(text, n)
      .replaceAll(replicaId(SOURCE.sid, n), sid)
      .replace(
        TIMESTAMP,
        (_, at) => `"timestamp":"${new Date(Date.parse(at) + (n - 1) * span).toISOString()}"`,
      );
    parts.push(copy.endsWith('\n') ? copy : `${copy}\n`);
    bytes += Buffer.byteLength(parts[parts.length - 1]);
  }
  const dir = join(work, 'claude/projects', '-bench-reader');
  mkdirSync(dir, { recursive: true });
  const data = parts.join('');
  writeFileSync(join(dir, `${sid}.jsonl`), data);
  return {
    env: agentEnv(work),
    agent: 'claude-code',
    sid,
    codeItem: replicaId(READ_CALL, 1),
    bytes: Buffer.byteLength(data),
    lines: data.split('\n').length - 1,
  };
}
