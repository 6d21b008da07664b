// Whether a file is a pi session: a .jsonl whose first record is pi's `session` header.
import { parseJsonLine, splitLines } from '../../lines.js';
import { isPiHeader } from './records.js';

export function detectPi(path: string, head: Uint8Array): boolean {
  if (!path.endsWith('.jsonl')) return false;
  for (const span of splitLines(head)) {
    const parsed = parseJsonLine(head, span);
    if (!parsed.ok && parsed.reason === 'empty line') continue;
    return parsed.ok && isPiHeader(parsed.value);
  }
  return false;
}
