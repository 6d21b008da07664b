// A dump put out a piece at a time, with the same bytes as the whole file serialized at once. A long
// session's dump is hundreds of megabytes of text: redacting it as one string and serializing it as
// another held it twice over, on top of the items themselves.
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { SessionDumpFile } from '@cairn/protocol';
import type { DumpWriteFailed } from './dump-io.js';
import { redactItems } from './redact/items.js';
import { type RedactionCounts, redactValue } from './redact/redact.js';
import { err, ok, type Result } from './result.js';

/** Characters of text redacted in one scan: enough that the rule set's cost per scan is small. */
const REDACT_BATCH_CHARS = 4 * 1024 * 1024;

/**
 * The dump with every string redacted, as redactValue gives it: the redactor reads each string on
 * its own, so the items are scanned a batch at a time rather than all joined into one text.
 */
export async function redactDumpFile(
  file: SessionDumpFile,
): Promise<{ file: SessionDumpFile; counts: RedactionCounts }> {
  const counts: RedactionCounts = {};
  const add = (more: RedactionCounts) => {
    for (const [kind, n] of Object.entries(more)) counts[kind] = (counts[kind] ?? 0) + n;
  };
  const { items, ids, ...head } = file;
  const redactedHead = await redactValue(head);
  add(redactedHead.counts);
  const { items: redactedItems, counts: itemCounts } = await redactItems(items, REDACT_BATCH_CHARS);
  add(itemCounts);
  const redactedIds = await redactValue(ids);
  add(redactedIds.counts);
  // The keys in the file's own order, items and ids where they were.
  const out = {} as Record<string, unknown>;
  for (const key of Object.keys(file))
    out[key] =
      key === 'items'
        ? redactedItems
        : key === 'ids'
          ? redactedIds.value
          : (redactedHead.value as Record<string, unknown>)[key];
  return { file: out as unknown as SessionDumpFile, counts };
}

/**
 * `JSON.stringify(file, null, 2)` and a newline, in pieces: the top-level fields one by one, and
 * the items one piece each. A nested value's lines are indented by its depth, which is safe to do
 * on the serialized text because JSON strings hold no raw newline.
 */
export function* dumpJsonPieces(file: SessionDumpFile): Generator<string> {
  const fields = Object.entries(file).filter(([, v]) => serializable(v));
  if (fields.length === 0) {
    yield '{}\n';
    return;
  }
  yield '{\n';
  for (const [k, [key, value]] of fields.entries()) {
    const end = k === fields.length - 1 ? '\n' : ',\n';
    if (key !== 'items' || !Array.isArray(value) || value.length === 0) {
      yield `  ${JSON.stringify(key)}: ${indented(JSON.stringify(value, null, 2), '  ')}${end}`;
      continue;
    }
    yield `  ${JSON.stringify(key)}: [\n`;
    for (const [i, item] of (value as unknown[]).entries()) {
      const text = serializable(item) ? JSON.stringify(item, null, 2) : 'null';
      yield `    ${indented(text, '    ')}${i === value.length - 1 ? '\n' : ',\n'}`;
    }
    yield `  ]${end}`;
  }
  yield '}\n';
}

/** What JSON.stringify keeps as an object's field (an undefined, a function or a symbol it drops). */
const serializable = (v: unknown): boolean =>
  v !== undefined && typeof v !== 'function' && typeof v !== 'symbol';

const indented = (text: string, by: string): string => text.replaceAll('\n', `\n${by}`);

/** Pieces are gathered to about this many characters before each write to the file. */
const WRITE_CHARS = 1024 * 1024;

/**
 * Writes the pieces to `path` beside it and renames over it, as writeAtomic does, so a reader never
 * sees half a file. Answers the bytes written.
 */
export async function writePiecesAtomic(
  path: string,
  pieces: Iterable<string>,
  signal?: AbortSignal,
): Promise<Result<number, DumpWriteFailed>> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  let bytes = 0;
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const handle = await open(temp, 'wx', 0o600);
    try {
      let held: string[] = [];
      let chars = 0;
      const flush = async () => {
        const chunk = Buffer.from(held.join(''));
        held = [];
        chars = 0;
        bytes += chunk.length;
        await handle.writeFile(chunk);
      };
      for (const piece of pieces) {
        held.push(piece);
        chars += piece.length;
        if (chars >= WRITE_CHARS) {
          signal?.throwIfAborted();
          await flush();
        }
      }
      await flush();
    } finally {
      await handle.close();
    }
    signal?.throwIfAborted();
    await rename(temp, path);
    return ok(bytes);
  } catch (cause) {
    await rm(temp, { force: true }).catch(() => {});
    if (signal?.aborted) throw signal.reason;
    return err({
      _tag: 'DumpWriteFailed',
      path,
      message: `cannot write ${path}: ${(cause as Error).message}`,
    });
  }
}
