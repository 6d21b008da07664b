// Whether a file is a Copilot CLI session: a .jsonl whose first record has Copilot's event
// envelope (a dotted `type`, `data`, `id`, `parentId`). The dotted type tells it from pi's
// records, which share `id`/`parentId`, and from Claude Code's, which carry `uuid`.
import { parseJsonLine, splitLines } from '../../lines.js';
import { isCopilotEvent } from './records.js';

export function detectCopilot(path: string, head: Uint8Array): boolean {
  if (!path.endsWith('.jsonl')) return false;
  for (const span of splitLines(head)) {
    const parsed = parseJsonLine(head, span);
    if (!parsed.ok && parsed.reason === 'empty line') continue;
    return parsed.ok && isCopilotEvent(parsed.value);
  }
  return false;
}
