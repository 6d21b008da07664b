// Whether a file is a Gemini CLI session: a session-*.json(l) in a chats folder, or any
// .json/.jsonl whose first bytes are Gemini's session metadata (subagent files, moved files).

import { skipWhitespace } from '../../json-ranges.js';
import { parseJsonLine, splitLines } from '../../lines.js';
import { baseName, dirName, isJsonlFile, SESSION_FILE } from './paths.js';
import { isObject } from './records.js';

const lenient = new TextDecoder('utf-8');

export function detectGemini(path: string, head: Uint8Array): boolean {
  const name = baseName(path);
  if (!/\.jsonl?$/.test(name)) return false;
  if (head[skipWhitespace(head, 0)] !== 0x7b) return false;
  if (SESSION_FILE.test(name) && baseName(dirName(path)) === 'chats') return true;
  if (isJsonlFile(path, head)) {
    for (const span of splitLines(head)) {
      const parsed = parseJsonLine(head, span);
      if (!parsed.ok && parsed.reason === 'empty line') continue;
      const v = parsed.ok ? parsed.value : undefined;
      return isObject(v) && typeof v.sessionId === 'string' && typeof v.projectHash === 'string';
    }
    return false;
  }
  const text = lenient.decode(head);
  return text.includes('"projectHash"') && (text.includes('"messages"') || text.includes('"sessionId"'));
}
