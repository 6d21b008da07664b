// Redaction that can be reviewed: every secret found is listed (its kind, a masked glimpse, the
// item it sits in, and an id), and the caller may name ids to leave in clear. The ids are the same
// each time the same parts are scanned, so a list shown before sending picks out the same secrets
// when the document is built again to be sent. An id carries a keyed hash of the secret, never the
// secret: the key is this process's own, so an id says nothing to whoever reads it elsewhere.
import { createHmac, randomBytes } from 'node:crypto';
import {
  collectStrings,
  findSecrets,
  type RedactionCounts,
  redactionMarker,
  replaceStrings,
  secretFilter,
} from './redact.js';

/** One secret found, as a reviewer sees it. */
export interface RedactionFinding {
  /** Stable while this process runs: kind, keyed hash of the secret, and which occurrence of it. */
  readonly id: string;
  readonly kind: string;
  /** At most a few characters at each end, never the whole secret. */
  readonly masked: string;
  /** The item holding it; absent when it is in the document's own fields (the title). */
  readonly item?: string;
  readonly item_type?: string;
  /** Left in clear because the caller asked for this id. */
  readonly kept: boolean;
}

/** A piece of what is redacted, named by the item it is (if any). */
export interface ReviewPart {
  readonly value: unknown;
  readonly item?: string | undefined;
  readonly itemType?: string | undefined;
}

export interface ReviewedParts {
  readonly values: unknown[];
  /** Secrets replaced, by kind; the kept ones are not counted. */
  readonly counts: RedactionCounts;
  readonly findings: RedactionFinding[];
}

// The key of the ids' hash: made once per process, so the same secret gets the same id on preview
// and on send, and an id cannot be matched against guesses anywhere else.
const ID_KEY = randomBytes(32);
const SEPARATOR = '\n\n';
const SHORTEST = 8;

const slug = (kind: string): string =>
  kind
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** First and last few characters: a sixth of the secret on each side, four at most. */
export function maskSecret(secret: string): string {
  const n = Math.min(4, Math.floor(secret.length / 6));
  if (n === 0) return `… (${secret.length} characters)`;
  return `${secret.slice(0, n)}…${secret.slice(-n)}`;
}

/**
 * `parts` with every secret replaced by a marker naming its kind, except those whose id is in
 * `keep`, and the list of all the secrets found, in the order they appear.
 */
export async function reviewRedactions(
  parts: readonly ReviewPart[],
  keep: ReadonlySet<string> = new Set(),
): Promise<ReviewedParts> {
  const strings: string[][] = parts.map((p) => {
    const out: string[] = [];
    collectStrings(p.value, out);
    return out;
  });
  // Each distinct string is scanned once, all of them as one content, like redactTexts does;
  // nothing shorter than SHORTEST holds a secret any rule reports, nor what the first look rules out.
  const mayHold = await secretFilter();
  const index = new Map<string, number>();
  const ruledOut = new Set<string>();
  const unique: string[] = [];
  for (const list of strings)
    for (const s of list)
      if (s.length >= SHORTEST && !index.has(s) && !ruledOut.has(s)) {
        if (!mayHold(s)) {
          ruledOut.add(s);
          continue;
        }
        index.set(s, unique.length);
        unique.push(s);
      }
  const starts: number[] = [];
  let length = 0;
  for (const s of unique) {
    starts.push(length);
    length += s.length + SEPARATOR.length;
  }
  const spansOf: Array<Array<{ start: number; end: number; kind: string }>> = unique.map(() => []);
  let at = 0;
  for (const span of await findSecrets(unique.join(SEPARATOR))) {
    while (at + 1 < starts.length && (starts[at + 1] ?? 0) <= span.start) at++;
    const base = starts[at] ?? 0;
    const text = unique[at] ?? '';
    const start = span.start - base;
    const end = Math.min(span.end - base, text.length);
    if (start < end) spansOf[at]?.push({ start, end, kind: span.kind });
  }

  const counts: RedactionCounts = {};
  const findings: RedactionFinding[] = [];
  const seen = new Map<string, number>();
  const values = parts.map((part, p) => {
    const list = strings[p] ?? [];
    const redacted = list.map((text) => {
      const at = index.get(text);
      const spans = at === undefined ? [] : (spansOf[at] ?? []);
      if (spans.length === 0) return text;
      const pieces: string[] = [];
      let cursor = 0;
      for (const { start, end, kind } of spans) {
        const secret = text.slice(start, end);
        const hash = createHmac('sha256', ID_KEY).update(secret).digest('hex').slice(0, 16);
        const base = `${slug(kind)}:${hash}`;
        const occurrence = seen.get(base) ?? 0;
        seen.set(base, occurrence + 1);
        const id = `${base}:${occurrence}`;
        const kept = keep.has(id);
        findings.push({
          id,
          kind,
          masked: maskSecret(secret),
          ...(part.item === undefined ? {} : { item: part.item }),
          ...(part.itemType === undefined ? {} : { item_type: part.itemType }),
          kept,
        });
        if (kept) continue;
        pieces.push(text.slice(cursor, start), redactionMarker(kind));
        cursor = end;
        counts[kind] = (counts[kind] ?? 0) + 1;
      }
      pieces.push(text.slice(cursor));
      return pieces.join('');
    });
    let i = 0;
    return redacted.some((r, n) => r !== list[n])
      ? replaceStrings(part.value, () => redacted[i++] ?? '')
      : part.value;
  });
  return { values, counts, findings };
}
