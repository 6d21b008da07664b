// Recognising a Claude Code session file by its first records.
import { parseJsonLine, splitLines } from '../../lines.js';
import { looksLikeClaudeRecord } from './records.js';

/** A `.jsonl` whose first parsable record is a Claude Code record. */
export function detectClaudeCode(path: string, head: Uint8Array): boolean {
  if (!path.endsWith('.jsonl')) return false;
  for (const span of splitLines(head)) {
    const parsed = parseJsonLine(head, span);
    if (parsed.ok) return looksLikeClaudeRecord(parsed.value);
  }
  return false;
}
