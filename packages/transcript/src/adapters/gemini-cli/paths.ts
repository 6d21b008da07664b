// Gemini CLI's file names, and path pieces without node:path (translation also runs in a browser).
import { parseJsonLine, splitLines } from '../../lines.js';
import { isObject } from './records.js';

/** Main session files: session-<YYYY-MM-DDTHH-MM>-<first 8 of the session id>.json or .jsonl. */
export const SESSION_FILE = /^session-.+\.jsonl?$/;

const lastSeparator = (path: string): number => Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));

export const baseName = (path: string): string => path.slice(lastSeparator(path) + 1);

export const dirName = (path: string): string => {
  const at = lastSeparator(path);
  return at <= 0 ? path.slice(0, at + 1) : path.slice(0, at);
};

/** The file name without .json/.jsonl: the session id when a file records none. */
export const fileStem = (path: string): string => baseName(path).replace(/\.jsonl?$/, '');

/**
 * Whether a file is the append-only JSONL generation: by its extension, else by its first
 * non-empty line being a whole JSON object (a legacy document's first line is a lone '{').
 */
export function isJsonlFile(path: string, data: Uint8Array): boolean {
  if (path.endsWith('.jsonl')) return true;
  if (path.endsWith('.json')) return false;
  for (const span of splitLines(data)) {
    const parsed = parseJsonLine(data, span);
    if (!parsed.ok && parsed.reason === 'empty line') continue;
    return parsed.ok && isObject(parsed.value);
  }
  return false;
}
