// One line of plain text per event, for `cairn show`.
import { BARE_IMAGE_NOTE, type Transcript, type TranscriptEvent, withoutImageBytes } from '@cairn/transcript';
import { count, isoOf, oneLine } from './format.js';

function detail(e: TranscriptEvent): string {
  switch (e.kind) {
    case 'user':
    case 'assistant':
      return `${e.payload.synthetic ? `(${e.payload.origin ?? 'synthetic'}) ` : ''}${e.payload.text}${imageNotesOf(e.payload)}`;
    case 'reasoning':
      return e.payload.redacted ? '(redacted)' : e.payload.text;
    case 'tool_call':
      return `${e.payload.name} ${typeof e.payload.input === 'string' ? e.payload.input : JSON.stringify(e.payload.input)}`;
    case 'tool_result': {
      const flags = [e.payload.isError ? 'error' : '', e.payload.orphan ? 'orphan' : '']
        .filter(Boolean)
        .join(',');
      const out = outputLine(e.payload.output);
      return `${e.payload.callId}${flags ? ` [${flags}]` : ''} ${out}`;
    }
    case 'request': {
      const u = e.payload.usage;
      return `${e.payload.model ?? '?'} in=${count(u?.inputTokens)} out=${count(u?.outputTokens)}`;
    }
    case 'system':
      return `${e.payload.type}${e.payload.text ? ` ${e.payload.text}` : ''}`;
    case 'compaction':
      return `${e.payload.trigger ?? ''} pre=${count(e.payload.preTokens)} ${e.payload.summary ?? ''}`;
    case 'hook':
      return `${e.payload.name ?? e.payload.event}${e.payload.exitCode !== undefined ? ` exit=${e.payload.exitCode}` : ''}`;
    case 'unknown':
      return e.payload.recordType || '(no type)';
  }
}

/** A tool's output on one line: content blocks as their text, an image as its note, never its base64. */
function outputLine(output: unknown): string {
  const shown = withoutImageBytes(output);
  if (typeof shown === 'string') return shown;
  if (Array.isArray(shown) && shown.every((b) => typeof (b as { text?: unknown } | null)?.text === 'string'))
    return shown.map((b) => (b as { text: string }).text).join(' ');
  return JSON.stringify(shown ?? null);
}

/** The notes of the images a message carried, after its text. */
function imageNotesOf(payload: Readonly<Record<string, unknown>>): string {
  if (Array.isArray(payload.imageNotes)) return ` ${payload.imageNotes.join(' ')}`;
  const n = typeof payload.images === 'number' ? payload.images : 0;
  return n > 0 ? ` ${Array.from({ length: Math.min(n, 20) }, () => BARE_IMAGE_NOTE).join(' ')}` : '';
}

export function describeEvent(t: Transcript, e: TranscriptEvent, width = 160): string {
  const lane = e.agentId === t.agents[0]?.id ? 'main' : e.agentId.slice(0, 12);
  const time = isoOf(e.timestamp)?.slice(11, 19) ?? '--:--:--';
  const shadow = e.shadowedBy ? '~' : ' ';
  const head = `${String(e.seq).padStart(5)} ${time} ${lane.padEnd(12)} ${shadow}${e.kind.padEnd(11)}`;
  return `${head} ${oneLine(detail(e), Math.max(20, width - head.length - 1))}`;
}
