// Line diffs for edits: the before/after of an Edit (the library's diff, the one its counts come from),
// and the hunks of an apply_patch patch.
import { type DiffLine, diffCounts, diffLines } from '@cairn/transcript/items';

export { type DiffLine, diffCounts, diffLines };

export interface DiffFile {
  /** The file the hunk belongs to, with what happened to it (`update`, `add`, `delete`, `move`). */
  readonly path: string;
  readonly action: string;
  readonly lines: readonly DiffLine[];
}

/** Keeps changed lines and `context` unchanged lines around them; a run cut out becomes one `…` line. */
export function trimContext(
  lines: readonly DiffLine[],
  context = 3,
): (DiffLine | { op: '…'; text: string })[] {
  const keep = new Uint8Array(lines.length);
  lines.forEach((l, i) => {
    if (l.op === ' ') return;
    for (let j = Math.max(0, i - context); j <= Math.min(lines.length - 1, i + context); j++) keep[j] = 1;
  });
  const out: (DiffLine | { op: '…'; text: string })[] = [];
  let skipped = 0;
  lines.forEach((l, i) => {
    if (keep[i]) {
      if (skipped > 0) out.push({ op: '…', text: `${skipped} unchanged line${skipped === 1 ? '' : 's'}` });
      skipped = 0;
      out.push(l);
    } else {
      skipped++;
    }
  });
  if (skipped > 0) out.push({ op: '…', text: `${skipped} unchanged line${skipped === 1 ? '' : 's'}` });
  return out;
}

const FILE_HEADER = /^\*\*\* (Add|Update|Delete) File: (.+)$/;
const MOVE = /^\*\*\* Move to: (.+)$/;

/** The files of a `*** Begin Patch` … `*** End Patch` patch, each with its lines marked. */
export function parsePatch(patch: string): DiffFile[] {
  const files: { path: string; action: string; lines: DiffLine[] }[] = [];
  let current: { path: string; action: string; lines: DiffLine[] } | undefined;
  for (const line of patch.split('\n')) {
    const header = FILE_HEADER.exec(line);
    if (header) {
      current = { path: header[2]!, action: header[1]!.toLowerCase(), lines: [] };
      files.push(current);
      continue;
    }
    const move = MOVE.exec(line);
    if (move && current) {
      current.path = `${current.path} → ${move[1]}`;
      current.action = 'move';
      continue;
    }
    if (!current || line.startsWith('*** ')) continue;
    if (line.startsWith('@@')) {
      current.lines.push({ op: ' ', text: line });
      continue;
    }
    const op = line[0];
    if (op === '+' || op === '-' || op === ' ') current.lines.push({ op, text: line.slice(1) });
    else if (line !== '') current.lines.push({ op: ' ', text: line });
  }
  return files;
}
