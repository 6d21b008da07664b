// Line diffs for edits: the before/after of an Edit, and the hunks of an apply_patch patch.

export interface DiffLine {
  readonly op: ' ' | '-' | '+';
  readonly text: string;
}

export interface DiffFile {
  /** The file the hunk belongs to, with what happened to it (`update`, `add`, `delete`, `move`). */
  readonly path: string;
  readonly action: string;
  readonly lines: readonly DiffLine[];
}

// Above this many lines on a side the shortest-edit search gets slow in a page; such an edit is
// shown as all removed then all added, which is still exact.
const MAX_SIDE = 4000;

/** The shortest line diff of two texts (Myers), unchanged lines included. */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = before === '' ? [] : before.split('\n');
  const b = after === '' ? [] : after.split('\n');
  // Common head and tail are cut first: edits are usually small changes in long context.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const out: DiffLine[] = a.slice(0, head).map((text) => ({ op: ' ', text }));
  if (midA.length > MAX_SIDE || midB.length > MAX_SIDE) {
    for (const text of midA) out.push({ op: '-', text });
    for (const text of midB) out.push({ op: '+', text });
  } else {
    out.push(...myers(midA, midB));
  }
  for (const text of a.slice(a.length - tail)) out.push({ op: ' ', text });
  return out;
}

function myers(a: readonly string[], b: readonly string[]): DiffLine[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  if (max === 0) return [];
  const off = max;
  const v = new Int32Array(2 * max + 2);
  // trace[d] is the furthest x reached on each diagonal before step d.
  const trace: Int32Array[] = [];
  search: for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[off + k - 1]! < v[off + k + 1]!) ? v[off + k + 1]! : v[off + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[off + k] = x;
      if (x >= n && y >= m) break search;
    }
  }
  // Walk back from the end, one edit per step, to recover the script.
  const out: DiffLine[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const t = trace[d]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && t[off + k - 1]! < t[off + k + 1]!) ? k + 1 : k - 1;
    const prevX = t[off + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      out.push({ op: ' ', text: a[x - 1]! });
      x--;
      y--;
    }
    if (d > 0) {
      if (x === prevX) out.push({ op: '+', text: b[prevY]! });
      else out.push({ op: '-', text: a[prevX]! });
    }
    x = prevX;
    y = prevY;
  }
  return out.reverse();
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
