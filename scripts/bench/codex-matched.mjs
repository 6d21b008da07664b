// Codex rollouts of given sizes, so that an agent's small sessions are set beside Codex sessions of
// the same bytes rather than beside long rollouts: a session's fixed costs (opening the file, its
// head, the first records' set-up) weigh more per KB the shorter it is. Each rollout is the start of
// a real one, cut at a line end, as a short Codex session is the start of what a long one would be.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { files, rewrite } from './corpus.mjs';

/** The sizes of a text's prefixes that end at a line end, with the prefix's end for each. */
function lineEnds(text) {
  const ends = [];
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) ends.push(at + 1);
  return ends;
}

/** The line end of `ends` whose prefix is nearest `bytes` (at least one line). */
function nearestEnd(ends, bytes) {
  let best = ends[0];
  for (const end of ends) {
    if (Math.abs(end - bytes) < Math.abs(best - bytes)) best = end;
    if (end > bytes) break;
  }
  return best;
}

/**
 * Writes one Codex rollout per size of `sizes` into `codexHome`, each the start of one of the
 * corpus's rollouts as near that size as whole lines allow. The rollouts taken turn in order, so
 * the set mixes them; a rollout whose start would miss the size by more than a fifth gives way to
 * the nearest of the others. Returns the count and the bytes written.
 */
export function buildMatchedCodex({ source, codexHome, sizes }) {
  const rollouts = files(join(source, 'codex'))
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((path) => {
      const text = readFileSync(path, 'utf8');
      // Byte offsets, not string indexes: the sizes asked are bytes.
      const bytes = Buffer.from(text);
      return { name: basename(path), bytes, ends: lineEnds(bytes.toString('latin1')) };
    });
  if (rollouts.length === 0) throw new Error(`no Codex rollout under ${join(source, 'codex')}`);
  const day = join(codexHome, 'sessions', '2026', '01', '01');
  mkdirSync(day, { recursive: true });
  let written = 0;
  sizes.forEach((size, i) => {
    const choices = rollouts.map((_, k) => {
      const r = rollouts[(i + k) % rollouts.length];
      return { r, end: nearestEnd(r.ends, size) };
    });
    const near = choices.find((c) => Math.abs(c.end - size) <= size / 5);
    const { r, end } =
      near ?? choices.reduce((a, b) => (Math.abs(b.end - size) < Math.abs(a.end - size) ? b : a));
    // Replica i + 1 of that start: its ids (and so its file name) are its own.
    const data = rewrite(r.bytes.subarray(0, end).toString('utf8'), i + 1);
    writeFileSync(join(day, rewrite(r.name, i + 1)), data);
    written += Buffer.byteLength(data);
  });
  return { rollouts: sizes.length, bytes: written };
}
