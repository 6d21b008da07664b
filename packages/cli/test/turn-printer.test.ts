// How `cairn run` shows tool calls: by the tool's name and the argument that tells calls apart,
// at the call and at its end, never by the call's id.
import { describe, expect, it } from 'vitest';
import { TurnPrinter } from '../src/turn-printer.js';

function printed(events: { eventName: string; payload: Record<string, unknown> }[]): string {
  let out = '';
  const sink = { write: (t: string) => (out += t) };
  const printer = new TurnPrinter(sink, sink, { json: false });
  for (const [seq, e] of events.entries()) {
    printer.event({ seq, ...e } as Parameters<TurnPrinter['event']>[0]);
  }
  printer.finish();
  return out;
}

describe('cairn run tool lines', () => {
  it('names the tool and its key argument at the call and at its end', () => {
    const out = printed([
      {
        eventName: 'tool_call',
        payload: {
          toolCallId: 'toolu_01ABC',
          title: 'Bash',
          kind: 'execute',
          rawInput: { command: 'npm test' },
        },
      },
      { eventName: 'tool_call_update', payload: { toolCallId: 'toolu_01ABC', status: 'completed' } },
    ]);
    expect(out).toBe('⏺ Bash npm test\n  ⎿ Bash npm test completed\n');
    expect(out).not.toContain('toolu_01ABC');
  });

  it('takes a name and input that arrive only with an update', () => {
    const out = printed([
      { eventName: 'tool_call', payload: { toolCallId: 'call_9', kind: 'edit', status: 'pending' } },
      {
        eventName: 'tool_call_update',
        payload: { toolCallId: 'call_9', title: 'Write', rawInput: { file_path: 'notes.txt', content: 'x' } },
      },
      { eventName: 'tool_call_update', payload: { toolCallId: 'call_9', status: 'failed' } },
    ]);
    expect(out).toBe('⏺ edit (pending)\n  ⎿ Write notes.txt failed\n');
  });

  it('does not repeat an argument the title already names', () => {
    const out = printed([
      {
        eventName: 'tool_call',
        payload: { toolCallId: 'c1', title: 'Read src/a.ts', rawInput: { path: 'src/a.ts' } },
      },
    ]);
    expect(out).toBe('⏺ Read src/a.ts\n');
  });
});
