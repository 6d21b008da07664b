// The files a chat's agent changed, read from the chat's state as the server's frames build it: a
// write, an edit, a patch and a call known only by its diff blocks each land under their file, in
// order, pointing back at their call; a failed call is marked, and calls that change nothing are left
// out.
import { describe, expect, it } from 'vitest';
import { chatChanges } from '../src/chat/changes.js';
import { type ChatState, initialChatState, reduceChat } from '../src/chat/state.js';
import type { ServerEvent } from '../src/chat/wire.js';

const run = (events: ServerEvent[]): ChatState => events.reduce(reduceChat, initialChatState('s1'));

const call = (id: string, name: string, args: unknown, result: unknown, isError = false): ServerEvent[] => [
  { type: 'tool_call', messageId: 'm1', id, name, args, startedAt: 1 } as ServerEvent,
  {
    type: 'tool_result',
    messageId: 'm1',
    id,
    result,
    ...(isError ? { isError } : {}),
    finishedAt: 2,
  } as ServerEvent,
];

const PATCH = [
  '*** Begin Patch',
  '*** Update File: src/a.ts',
  '@@',
  '-const a = 1;',
  '+const a = 2;',
  '*** Add File: src/b.ts',
  '+export const b = 3;',
  '*** End Patch',
].join('\n');

describe('the files a chat changed', () => {
  it('lists each file once, its changes in order, each pointing at the call behind it', () => {
    const state = run([
      { type: 'message_start', messageId: 'm1' },
      ...call('t1', 'Write /p/notes.txt', { file_path: '/p/notes.txt', content: 'one\ntwo' }, 'ok'),
      ...call('t2', 'Run ls', { command: 'ls' }, 'notes.txt'),
      ...call(
        't3',
        'Edit /p/notes.txt',
        { file_path: '/p/notes.txt', old_string: 'two', new_string: 'three' },
        'ok',
      ),
      ...call('t4', 'apply_patch', { patch: PATCH }, 'done'),
      ...call('t5', 'Edit', {}, [{ type: 'diff', path: '/p/c.md', oldText: 'x', newText: 'y\nz' }]),
      ...call('t6', 'Write /p/locked.txt', { path: '/p/locked.txt', content: 'no' }, 'denied', true),
    ]);
    const { files, calls } = chatChanges(state.entries);
    expect(files.map((f) => f.path)).toEqual([
      '/p/notes.txt',
      'src/a.ts',
      'src/b.ts',
      '/p/c.md',
      '/p/locked.txt',
    ]);

    const notes = files[0]!;
    expect(notes.changes.map((c) => [c.tool, c.kind, c.removed, c.added])).toEqual([
      ['Write', 'write', 0, 2],
      ['Edit', 'edit', 1, 1],
    ]);
    expect(notes.changes[0]!.lines).toEqual([
      { op: '+', text: 'one' },
      { op: '+', text: 'two' },
    ]);
    expect(notes.changes.map((c) => calls.get(c.call.uuid))).toEqual([
      { id: 't1', name: 'Write /p/notes.txt' },
      { id: 't3', name: 'Edit /p/notes.txt' },
    ]);

    // One patch changes two files, both pointing at the same call.
    expect(files[1]!.changes[0]).toMatchObject({ kind: 'update', removed: 1, added: 1 });
    expect(files[2]!.changes[0]).toMatchObject({ kind: 'add', removed: 0, added: 1 });
    expect(calls.get(files[2]!.changes[0]!.call.uuid)?.id).toBe('t4');

    // A call known only by the protocol's diff blocks is an edit of the block's file.
    expect(files[3]!.changes[0]).toMatchObject({ tool: 'Edit', removed: 1, added: 2, failed: false });
    expect(calls.get(files[3]!.changes[0]!.call.uuid)?.id).toBe('t5');

    // A call that failed is kept, marked as not applied.
    expect(files[4]!.changes[0]).toMatchObject({ failed: true });
  });

  it('finds nothing in a chat without edits', () => {
    const state = run([
      { type: 'message_start', messageId: 'm1' },
      ...call('t1', 'Read /p/a.txt', { file_path: '/p/a.txt' }, 'hello'),
    ]);
    expect(chatChanges(state.entries).files).toEqual([]);
  });
});
