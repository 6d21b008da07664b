// Whether a file is a Codex rollout: by its name, else by its first record.
import { parseJsonLine, splitLines } from '../../lines.js';
import { isObject, str } from './records.js';

export const ROLLOUT_NAME = /^rollout-.+\.jsonl(?:\.zst)?$/;

export const baseName = (path: string): string =>
  path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);

export function detectRollout(path: string, head: Uint8Array): boolean {
  if (ROLLOUT_NAME.test(baseName(path))) return true;
  for (const span of splitLines(head)) {
    const parsed = parseJsonLine(head, span);
    if (!parsed.ok) {
      if (parsed.reason === 'empty line') continue;
      return false;
    }
    const v = parsed.value;
    if (!isObject(v)) return false;
    if (v.type === 'session_meta' && isObject(v.payload)) return true;
    // The bare generation's header: no envelope, a session id, a timestamp and the instructions slot.
    return (
      v.type === undefined && str(v.id) !== undefined && str(v.timestamp) !== undefined && 'instructions' in v
    );
  }
  return false;
}
