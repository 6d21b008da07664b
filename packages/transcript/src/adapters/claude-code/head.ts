// What the first bytes of a session file tell a listing.
import { slashCommandOf } from '../../items/envelopes.js';
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
  gitBranch?: string;
  /** Set when the first record is of a format generation this adapter does not know. */
  unknown?: { line: number; detail: string };
}

export function headFacts(head: Uint8Array): HeadFacts {
  const facts: HeadFacts = {};
  let custom: string | undefined;
  let agentName: string | undefined;
  let ai: string | undefined;
  let summary: string | undefined;
  // A slash command is the person's prompt too: one with arguments says what the session is
  // about; a bare one (`/mcp`) only when nothing else was typed.
  let bareCommand: string | undefined;
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
    facts.gitBranch ??= str(r.gitBranch) || undefined;
    const type = str(r.type);
    if (type === 'custom-title') custom = str(r.customTitle) ?? str(r.title) ?? custom;
    else if (type === 'agent-name') agentName = str(r.agentName) ?? agentName;
    else if (type === 'ai-title') ai = str(r.aiTitle) ?? str(r.title) ?? ai;
    else if (type === 'summary') summary = str(r.summary) ?? summary;
    else if (type === 'user' && facts.firstPrompt === undefined) {
      const user = userTextOf(rec(r.message)?.content);
      const origin = user && userOrigin(user, r, true);
      if (user && origin === undefined) facts.firstPrompt = user.text;
      else if (user && origin === 'command') {
        const c = commandLine(user.text);
        if (c?.args) facts.firstPrompt = c.line;
        else bareCommand ??= c?.line;
      }
    }
  }
  if (facts.firstPrompt === undefined && bareCommand !== undefined) facts.firstPrompt = bareCommand;
  const title = custom ?? agentName ?? ai ?? summary;
  if (title !== undefined) facts.title = title;
  if (facts.cwd === undefined) delete facts.cwd;
  if (facts.startedAt === undefined) delete facts.startedAt;
  if (facts.gitBranch === undefined) delete facts.gitBranch;
  return facts;
}

/** A slash command as the person typed it: `/name args`. */
function commandLine(text: string): { line: string; args: boolean } | undefined {
  const c = slashCommandOf(text);
  if (c.command === undefined) return undefined;
  const args = c.args !== undefined && c.args !== c.command.replace(/^\//, '') ? c.args : undefined;
  return { line: args ? `${c.command} ${args}` : c.command, args: args !== undefined };
}
