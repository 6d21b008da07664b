// One line of plain text per event, for `cairn show`.
import type { Transcript, TranscriptEvent } from '@cairn/transcript';
import { count, isoOf, oneLine } from './format.js';

function detail(e: TranscriptEvent): string {
  switch (e.kind) {
    case 'user':
    case 'assistant':
      return `${e.payload.synthetic ? `(${e.payload.origin ?? 'synthetic'}) ` : ''}${e.payload.text}`;
    case 'reasoning':
      return e.payload.redacted ? '(redacted)' : e.payload.text;
    case 'tool_call':
      return `${e.payload.name} ${typeof e.payload.input === 'string' ? e.payload.input : JSON.stringify(e.payload.input)}`;
    case 'tool_result': {
      const flags = [e.payload.isError ? 'error' : '', e.payload.orphan ? 'orphan' : '']
        .filter(Boolean)
        .join(',');
      const out =
        typeof e.payload.output === 'string' ? e.payload.output : JSON.stringify(e.payload.output ?? null);
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

export function describeEvent(t: Transcript, e: TranscriptEvent, width = 160): string {
  const lane = e.agentId === t.agents[0]?.id ? 'main' : e.agentId.slice(0, 12);
  const time = isoOf(e.timestamp)?.slice(11, 19) ?? '--:--:--';
  const shadow = e.shadowedBy ? '~' : ' ';
  const head = `${String(e.seq).padStart(5)} ${time} ${lane.padEnd(12)} ${shadow}${e.kind.padEnd(11)}`;
  return `${head} ${oneLine(detail(e), Math.max(20, width - head.length - 1))}`;
}
