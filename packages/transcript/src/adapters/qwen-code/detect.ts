// Whether a file is a Qwen Code session: a .jsonl whose first record has Qwen Code's envelope
// (uuid, parentUuid, type) and a Gemini-style message (`parts`) or a system payload, which is what
// tells it from a Claude Code record (Claude Code writes `message.content`).
import { parseJsonLine, splitLines } from '../../lines.js';
import { gluedRecords, isObject, isQwenRecord } from './records.js';

export function detectQwen(path: string, head: Uint8Array): boolean {
  if (!path.endsWith('.jsonl')) return false;
  for (const span of splitLines(head)) {
    const parsed = parseJsonLine(head, span);
    if (!parsed.ok && parsed.reason === 'empty line') continue;
    const value = parsed.ok ? parsed.value : gluedRecords(head, span)?.[0]?.value;
    if (!isQwenRecord(value)) return false;
    const message = isObject(value.message) ? value.message : undefined;
    return Array.isArray(message?.parts) || isObject(value.systemPayload);
  }
  return false;
}
