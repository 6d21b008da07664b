// What the first bytes of a session file tell a listing.
import { parseJsonLine, splitLines } from '../../lines.js';
import { userOrigin, userTextOf } from './origin.js';
import { isRec, type Rec, rec, str, timestampOf, unknownGeneration } from './records.js';

/** The records of a file's head; a line cut at the end of the head does not parse and is left out. */
export function* headRecords(head: Uint8Array): Generator<Rec> {
  for (const span of splitLines(head)) {
    const parsed = parseJsonLine(head, span);
    if (parsed.ok && isRec(parsed.value)) yield parsed.value;
  }
}

export interface HeadFacts {
  cwd?: string;
  title?: string;
  firstPrompt?: string;
  startedAt?: number;
  /** Set when the first record is of a format generation this adapter does not know. */
  unknown?: { line: number; detail: string };
}

export function headFacts(head: Uint8Array): HeadFacts {
  const facts: HeadFacts = {};
  let custom: string | undefined;
  let agentName: string | undefined;
  let ai: string | undefined;
  let summary: string | undefined;
  let first = true;
  for (const span of splitLines(head)) {
    const parsed = parseJsonLine(head, span);
    if (!parsed.ok) continue;
    if (first) {
      first = false;
      const detail = unknownGeneration(parsed.value);
      if (detail !== undefined) return { unknown: { line: span.line, detail } };
    }
    const r = parsed.value;
    if (!isRec(r)) continue;
    facts.cwd ??= str(r.cwd);
    facts.startedAt ??= timestampOf(r.timestamp);
    const type = str(r.type);
    if (type === 'custom-title') custom = str(r.customTitle) ?? str(r.title) ?? custom;
    else if (type === 'agent-name') agentName = str(r.agentName) ?? agentName;
    else if (type === 'ai-title') ai = str(r.aiTitle) ?? str(r.title) ?? ai;
    else if (type === 'summary') summary = str(r.summary) ?? summary;
    else if (type === 'user' && facts.firstPrompt === undefined) {
      const user = userTextOf(rec(r.message)?.content);
      if (user && userOrigin(user, r, true) === undefined) facts.firstPrompt = user.text;
    }
  }
  const title = custom ?? agentName ?? ai ?? summary;
  if (title !== undefined) facts.title = title;
  if (facts.cwd === undefined) delete facts.cwd;
  if (facts.startedAt === undefined) delete facts.startedAt;
  return facts;
}
