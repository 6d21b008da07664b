// Claude Code record kinds the corpus does not hold (newer and rarer ones), from hand-made lines
// shaped like the CLI's: attachments, titles, synthetic messages, replays, preserved segments.
import { describe, expect, it } from 'vitest';
import type { SourceFile } from '../../src/adapter.js';
import { claudeCodeAdapter } from '../../src/adapters/claude-code/index.js';
import { finishTranscript } from '../../src/load.js';
import type { Transcript, TranscriptEventKind, TranscriptEventOf } from '../../src/model.js';
import { foldTranscript } from '../../src/summary.js';

const jsonl = (...records: unknown[]): Uint8Array =>
  new TextEncoder().encode(records.map((r) => `${JSON.stringify(r)}\n`).join(''));

let clock = Date.parse('2026-03-01T10:00:00.000Z');
const at = () => {
  clock += 1000;
  return new Date(clock).toISOString();
};
const env = (uuid: string, extra: Record<string, unknown> = {}) => ({
  parentUuid: null,
  isSidechain: false,
  sessionId: 'main',
  cwd: '/repo',
  version: '2.1.300',
  uuid,
  timestamp: at(),
  ...extra,
});
const user = (uuid: string, content: unknown, extra: Record<string, unknown> = {}) => ({
  ...env(uuid, extra),
  type: 'user',
  message: { role: 'user', content },
});
const assistant = (
  uuid: string,
  id: string,
  requestId: string,
  content: unknown[],
  extra: Record<string, unknown> = {},
) => ({
  ...env(uuid, extra),
  type: 'assistant',
  requestId,
  message: {
    id,
    model: 'claude-opus-4-6',
    role: 'assistant',
    content,
    usage: { input_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 50, output_tokens: 7 },
  },
});

function run(files: SourceFile[]): Transcript {
  const r = claudeCodeAdapter.translate(files);
  if (!r.ok) throw new Error(r.error.message);
  const t = finishTranscript('claude-code', r.value);
  // Every hand-made session also checks the summary pass against the fold.
  const fast = claudeCodeAdapter.summarize!(files);
  expect(fast.ok && fast.value).toEqual(foldTranscript(t, { prompts: true }));
  return t;
}

const ofKind = <K extends TranscriptEventKind>(t: Transcript, kind: K): TranscriptEventOf<K>[] =>
  t.events.filter((e) => e.kind === kind) as TranscriptEventOf<K>[];

describe('Claude Code records beyond the corpus', () => {
  it('reads hook attachments as hooks and other attachments as system events', () => {
    const t = run([
      {
        path: '/h/main.jsonl',
        data: jsonl(
          {
            ...env('h1'),
            type: 'attachment',
            attachment: {
              type: 'hook_success',
              hookName: 'PostToolUse:Edit',
              hookEvent: 'PostToolUse',
              toolUseID: 't1',
              command: 'lint.sh',
              stdout: 'ok\n',
              stderr: '',
              exitCode: 0,
              durationMs: 12,
            },
          },
          {
            ...env('h2'),
            type: 'attachment',
            attachment: {
              type: 'hook_non_blocking_error',
              hookName: 'SessionStart:startup',
              hookEvent: 'SessionStart',
              stderr: 'boom',
              exitCode: 1,
            },
          },
          {
            ...env('h3'),
            type: 'attachment',
            attachment: { type: 'skill_listing', content: 'skills: a, b' },
          },
        ),
      },
    ]);
    const hooks = ofKind(t, 'hook');
    expect(hooks[0]?.payload).toMatchObject({
      event: 'PostToolUse',
      name: 'PostToolUse:Edit',
      command: 'lint.sh',
      exitCode: 0,
      durationMs: 12,
      output: 'ok\n',
    });
    expect(hooks[0]?.payload.isError).toBeUndefined();
    expect(hooks[1]?.payload).toMatchObject({
      event: 'SessionStart',
      name: 'SessionStart:startup',
      isError: true,
      stderr: 'boom',
    });
    expect(ofKind(t, 'system')[0]?.payload).toMatchObject({
      type: 'attachment:skill_listing',
      text: 'skills: a, b',
    });
    expect(t.capabilities).toContain('hooks');
  });

  it('names the session by a rename first, then the model title, then a summary', () => {
    const titled = (...records: unknown[]) =>
      run([{ path: '/t/main.jsonl', data: jsonl(user('u1', 'hi'), ...records) }]);
    const all = titled(
      { type: 'summary', summary: 'A summary', leafUuid: 'u1' },
      { type: 'ai-title', aiTitle: 'Model title', sessionId: 'main' },
      { type: 'custom-title', customTitle: 'Old name', sessionId: 'main' },
      { type: 'custom-title', customTitle: 'My name', sessionId: 'main' },
      { type: 'ai-title', aiTitle: 'Later model title', sessionId: 'main' },
    );
    expect(all.session.title).toBe('My name');
    expect(all.skipped.map((s) => s.reason)).toEqual(Array(5).fill('session title'));
    expect(
      titled({ type: 'summary', summary: 'A summary', leafUuid: 'u1' }, { type: 'ai-title', aiTitle: 'T' })
        .session.title,
    ).toBe('T');
    expect(titled({ type: 'summary', summary: 'A summary', leafUuid: 'u1' }).session.title).toBe('A summary');
  });

  it('keeps messages the CLI made up as synthetic assistant text with no request', () => {
    const t = run([
      {
        path: '/s/main.jsonl',
        data: jsonl(user('u1', 'go'), {
          ...env('a1'),
          type: 'assistant',
          isApiErrorMessage: true,
          message: {
            id: 'x',
            model: '<synthetic>',
            role: 'assistant',
            content: [{ type: 'text', text: 'API Error: overloaded' }],
            usage: { input_tokens: 0, output_tokens: 0 },
          },
        }),
      },
    ]);
    expect(ofKind(t, 'request')).toHaveLength(0);
    expect(ofKind(t, 'assistant')[0]?.payload).toEqual({
      text: 'API Error: overloaded',
      synthetic: true,
      origin: 'api_error',
    });
    expect(ofKind(t, 'assistant')[0]?.requestId).toBeUndefined();
    expect(t.capabilities).not.toContain('requests');
  });

  it('counts a side question replaying the parent response once, and skips copied records', () => {
    const original = assistant('a1', 'msg_1', 'req_1', [{ type: 'text', text: 'answer' }]);
    const t = run([
      {
        path: '/r/main.jsonl',
        data: jsonl(
          user('u1', 'question'),
          original,
          // A /btw side question replays the parent message under a new request id.
          assistant('a1b', 'msg_1', 'req_9', [{ type: 'text', text: 'answer' }], { isSidechain: true }),
          assistant('a2', 'msg_2', 'req_2', [{ type: 'text', text: 'side answer' }], { isSidechain: true }),
        ),
      },
      {
        path: '/r/main/subagents/agent-b1.jsonl',
        data: jsonl(
          user('s1', 'task', { isSidechain: true, agentId: 'b1' }),
          // The same record copied into the subagent file, and the same response under a new line.
          original,
          assistant('s2', 'msg_1', 'req_1', [{ type: 'text', text: 'answer' }], {
            isSidechain: true,
            agentId: 'b1',
          }),
        ),
      },
    ]);
    expect(ofKind(t, 'request').map((r) => r.payload.messageId)).toEqual(['msg_1', 'msg_2']);
    expect(t.skipped.map((s) => s.reason)).toEqual(['parent replay', 'replayed record']);
    const lateCopy = t.events.find((e) => e.id === 's2');
    expect(lateCopy?.requestId).toBe(ofKind(t, 'request')[0]?.id);
  });

  it('keeps a preserved segment out of the compaction shadow until a later compaction', () => {
    const t = run([
      {
        path: '/c/main.jsonl',
        data: jsonl(
          user('u1', 'first'),
          user('u2', 'second'),
          user('u3', 'third'),
          {
            ...env('c1'),
            type: 'system',
            subtype: 'compact_boundary',
            content: 'Conversation compacted',
            compactMetadata: {
              trigger: 'manual',
              preTokens: 900,
              postTokens: 100,
              preservedSegment: { headUuid: 'u2', tailUuid: 'u3' },
            },
          },
          user('cs', 'This session is being continued from a previous conversation. Summary: ...', {
            isCompactSummary: true,
          }),
          user('u4', 'fourth'),
          {
            ...env('c2'),
            type: 'system',
            subtype: 'compact_boundary',
            compactMetadata: { trigger: 'auto', preTokens: 500 },
          },
        ),
      },
    ]);
    const shadow = Object.fromEntries(t.events.map((e) => [e.id, e.shadowedBy]));
    expect(shadow).toEqual({ u1: 'c1', u2: 'c2', u3: 'c2', c1: 'c2', cs: 'c2', u4: 'c2', c2: undefined });
    const [first, second] = ofKind(t, 'compaction');
    expect(first?.payload).toMatchObject({ trigger: 'manual', preTokens: 900, postTokens: 100 });
    expect(first?.payload.summary).toMatch(/^This session is being continued/);
    expect(second?.payload.summary).toBeUndefined();
    expect(foldTranscript(t)).toMatchObject({ compactions: 2, turns: 4 });
  });

  it('reads server tool results, fallbacks, redacted thinking and images', () => {
    const t = run([
      {
        path: '/b/main.jsonl',
        data: jsonl(
          user('u1', [
            { type: 'text', text: 'look' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA' } },
          ]),
          assistant('a1', 'msg_1', 'req_1', [
            { type: 'redacted_thinking', data: 'sealed' },
            { type: 'thinking', thinking: '', signature: 'sig' },
            { type: 'server_tool_use', id: 'srv_1', name: 'web_search', input: { query: 'q' } },
            {
              type: 'web_search_tool_result',
              tool_use_id: 'srv_1',
              content: { type: 'web_search_tool_result_error', error_code: 'unavailable' },
            },
            { type: 'fallback', from: { model: 'claude-opus-4-6' }, to: { model: 'claude-sonnet-4-6' } },
            { type: 'mystery_block', x: 1 },
          ]),
        ),
      },
    ]);
    // The image is counted and noted by type and size; its bytes stay in the record.
    expect(ofKind(t, 'user')[0]?.payload).toEqual({
      text: 'look',
      images: 1,
      imageNotes: ['[image: image/png, 1 B]'],
    });
    expect(ofKind(t, 'reasoning').map((e) => e.payload)).toEqual([
      { text: '', redacted: true },
      { text: '', redacted: true },
    ]);
    expect(ofKind(t, 'tool_call')[0]?.payload).toMatchObject({
      callId: 'srv_1',
      name: 'web_search',
      server: true,
    });
    expect(ofKind(t, 'tool_result')[0]?.payload).toMatchObject({ callId: 'srv_1', isError: true });
    expect(ofKind(t, 'system')[0]?.payload).toEqual({
      type: 'fallback',
      from: 'claude-opus-4-6',
      to: 'claude-sonnet-4-6',
    });
    expect(ofKind(t, 'unknown')[0]?.payload).toEqual({
      recordType: 'assistant:mystery_block',
      raw: { type: 'mystery_block', x: 1 },
    });
    expect(foldTranscript(t)).toMatchObject({ turns: 1, failedTools: 1 });
  });

  it('links a subagent by its progress records and a nested one to the subagent that spawned it', () => {
    const task = (uuid: string, id: string, extra: Record<string, unknown> = {}) =>
      assistant(
        uuid,
        `msg_${uuid}`,
        `req_${uuid}`,
        [{ type: 'tool_use', id, name: 'Agent', input: { subagent_type: 'Explore', prompt: 'look around' } }],
        extra,
      );
    const t = run([
      {
        path: '/n/main.jsonl',
        data: jsonl(user('u1', 'go'), task('a1', 'toolu_A'), {
          ...env('p1'),
          type: 'progress',
          data: { type: 'agent_progress', agentId: 'aaa', prompt: 'look around', message: {} },
          parentToolUseID: 'toolu_A',
          toolUseID: 'agent_msg_1',
        }),
      },
      {
        path: '/n/main/subagents/agent-aaa.jsonl',
        data: jsonl(
          user('s1', 'look around', { isSidechain: true, agentId: 'aaa' }),
          task('s2', 'toolu_B', { isSidechain: true, agentId: 'aaa' }),
          {
            ...user(
              's3',
              [{ type: 'tool_result', tool_use_id: 'toolu_B', content: [{ type: 'text', text: 'done' }] }],
              { isSidechain: true, agentId: 'aaa' },
            ),
            toolUseResult: { status: 'completed', agentId: 'bbb', totalDurationMs: 5 },
          },
        ),
      },
      {
        path: '/n/main/subagents/agent-bbb.jsonl',
        data: jsonl(user('t1', 'Find the tests\nand more', { isSidechain: true, agentId: 'bbb' })),
      },
      {
        path: '/n/main/subagents/agent-ccc.jsonl',
        data: jsonl(user('v1', 'Orphan work', { isSidechain: true, agentId: 'ccc' })),
      },
    ]);
    expect(t.agents).toEqual([
      { id: 'main' },
      { id: 'aaa', parentId: 'main', spawnEventId: 'a1', title: 'Explore' },
      { id: 'bbb', parentId: 'aaa', spawnEventId: 's2', title: 'Explore' },
      { id: 'ccc', parentId: 'main', title: 'Orphan work' },
    ]);
    expect(t.skipped.map((s) => s.reason)).toEqual(['subagent progress']);
    expect(ofKind(t, 'tool_result')[0]?.payload).toMatchObject({
      output: 'done',
      agentId: 'bbb',
      durationMs: 5,
    });
    expect(foldTranscript(t)).toMatchObject({ subagents: 3, turns: 1 });
  });

  it('keeps slash commands, their output and local commands', () => {
    const t = run([
      {
        path: '/k/main.jsonl',
        data: jsonl(
          user(
            'u1',
            '<command-name>/review</command-name>\n<command-message>review</command-message>\n<command-args>src/</command-args>',
          ),
          user('u2', '<local-command-stdout>Reviewed</local-command-stdout>'),
          {
            ...env('l1'),
            type: 'system',
            subtype: 'local_command',
            content: '<command-name>/model</command-name>',
            level: 'info',
          },
          { ...env('d1'), type: 'system', subtype: 'turn_duration', durationMs: 4200 },
          {
            ...env('e1'),
            type: 'system',
            subtype: 'api_error',
            level: 'error',
            retryAttempt: 2,
            error: { status: 529 },
          },
        ),
      },
    ]);
    expect(ofKind(t, 'user').map((e) => e.payload)).toEqual([
      expect.objectContaining({ synthetic: true, origin: 'command', command: '/review', args: 'src/' }),
      expect.objectContaining({ synthetic: true, origin: 'command_output' }),
    ]);
    expect(ofKind(t, 'system').map((e) => e.payload)).toEqual([
      { type: 'local_command', text: '<command-name>/model</command-name>', level: 'info' },
      { type: 'turn_duration', durationMs: 4200 },
      { type: 'api_error', level: 'error', retryAttempt: 2, error: { status: 529 } },
    ]);
    expect(foldTranscript(t).turns).toBe(0);
  });
});
