// The shortest line diff of two texts (Myers), for showing an edit and for counting what it changed:
// the reader draws the diff and the item's counts come from the same lines, so they always agree.

export interface DiffLine {
  readonly op: ' ' | '-' | '+';
  readonly text: string;
}

// Above this many lines on a side the shortest-edit search gets slow; such an edit is taken as all
// removed then all added, which is still exact.
const MAX_SIDE = 4000;

/** Every line of `before` and `after`, each marked unchanged, removed or added. */
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

/** How many lines a diff removes and adds. */
export function diffCounts(lines: readonly DiffLine[]): { removed: number; added: number } {
  let removed = 0;
  let added = 0;
  for (const l of lines) {
    if (l.op === '-') removed++;
    else if (l.op === '+') added++;
  }
  return { removed, added };
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
