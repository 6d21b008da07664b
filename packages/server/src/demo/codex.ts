// The demo sessions of Codex: one rollout.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clock, iso, jsonl, PROJECT } from './records.js';

export function writeCodexRollout(home: string, start: number): string {
  const id = randomUUID();
  const tick = clock(start);
  const day = new Date(start);
  const y = String(day.getUTCFullYear());
  const m = String(day.getUTCMonth() + 1).padStart(2, '0');
  const d = String(day.getUTCDate()).padStart(2, '0');
  const dir = join(home, '.codex', 'sessions', y, m, d);
  mkdirSync(dir, { recursive: true });
  const stamp = iso(start).slice(0, 19).replaceAll(':', '-');
  const path = join(dir, `rollout-${stamp}-${id}.jsonl`);
  const rec = (type: string, payload: object) => ({ timestamp: iso(tick(2)), type, payload });
  let total = {
    input_tokens: 0,
    cached_input_tokens: 0,
    output_tokens: 0,
    reasoning_output_tokens: 0,
    total_tokens: 0,
  };
  const tokens = (input: number, cached: number, output: number, reasoning: number) => {
    const last = {
      input_tokens: input,
      cached_input_tokens: cached,
      output_tokens: output,
      reasoning_output_tokens: reasoning,
      total_tokens: input + output,
    };
    total = {
      input_tokens: total.input_tokens + input,
      cached_input_tokens: total.cached_input_tokens + cached,
      output_tokens: total.output_tokens + output,
      reasoning_output_tokens: total.reasoning_output_tokens + reasoning,
      total_tokens: total.total_tokens + input + output,
    };
    return rec('event_msg', {
      type: 'token_count',
      info: { total_token_usage: { ...total }, last_token_usage: last, model_context_window: 272_000 },
    });
  };
  const prompt = 'Add a --units flag to the forecast command (metric or imperial, metric by default).';
  const turn = randomUUID();
  const records = [
    rec('session_meta', {
      id,
      timestamp: iso(start),
      cwd: PROJECT,
      originator: 'codex_cli_rs',
      cli_version: '0.104.0',
      source: 'cli',
      model_provider: 'openai',
    }),
    rec('response_item', {
      type: 'message',
      role: 'user',
      content: [
        {
          type: 'input_text',
          text: `<environment_context>\n  <cwd>${PROJECT}</cwd>\n</environment_context>`,
        },
      ],
    }),
    rec('event_msg', { type: 'task_started', turn_id: turn, model_context_window: 272_000 }),
    rec('turn_context', {
      turn_id: turn,
      cwd: PROJECT,
      approval_policy: 'on-request',
      sandbox_policy: { mode: 'workspace-write' },
      model: 'gpt-5-codex',
      effort: 'medium',
      summary: 'auto',
    }),
    rec('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] }),
    rec('event_msg', { type: 'user_message', message: prompt, images: [] }),
    rec('event_msg', { type: 'agent_reasoning', text: '**Finding the argument parser**' }),
    rec('response_item', {
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: '**Finding the argument parser**' }],
      content: null,
      encrypted_content: 'gAAAAdemo',
    }),
    rec('response_item', {
      type: 'function_call',
      name: 'exec_command',
      arguments: JSON.stringify({ cmd: 'rg -n "parseArgs" src', workdir: PROJECT }),
      call_id: 'call_demo_rg',
    }),
    tokens(9_800, 3_200, 160, 64),
    rec('event_msg', {
      type: 'exec_command_end',
      call_id: 'call_demo_rg',
      exit_code: 0,
      aggregated_output:
        'src/cli.ts:8:const { values } = parseArgs({ options: { city: { type: "string" } } });\n',
    }),
    rec('response_item', {
      type: 'function_call_output',
      call_id: 'call_demo_rg',
      output: 'src/cli.ts:8:const { values } = parseArgs({ options: { city: { type: "string" } } });\n',
    }),
    rec('response_item', {
      type: 'custom_tool_call',
      status: 'completed',
      call_id: 'call_demo_patch',
      name: 'apply_patch',
      input:
        '*** Begin Patch\n*** Update File: src/cli.ts\n@@\n-const { values } = parseArgs({ options: { city: { type: "string" } } });\n+const { values } = parseArgs({\n+  options: { city: { type: "string" }, units: { type: "string", default: "metric" } },\n+});\n*** End Patch\n',
    }),
    tokens(10_400, 9_600, 220, 32),
    rec('event_msg', {
      type: 'patch_apply_end',
      call_id: 'call_demo_patch',
      success: true,
      stdout: 'Success. Updated the following files:\nM src/cli.ts\n',
      stderr: '',
    }),
    rec('response_item', {
      type: 'custom_tool_call_output',
      call_id: 'call_demo_patch',
      output: JSON.stringify({
        output: 'Success. Updated the following files:\nM src/cli.ts\n',
        metadata: { exit_code: 0, duration_seconds: 0.0 },
      }),
    }),
    rec('event_msg', {
      type: 'agent_message',
      message: 'Added `--units metric|imperial` (metric by default) and passed it on to `getForecast`.',
    }),
    rec('response_item', {
      type: 'message',
      role: 'assistant',
      content: [
        {
          type: 'output_text',
          text: 'Added `--units metric|imperial` (metric by default) and passed it on to `getForecast`.',
        },
      ],
    }),
    tokens(10_900, 10_300, 95, 0),
    rec('event_msg', {
      type: 'task_complete',
      turn_id: turn,
      last_agent_message: 'Added `--units`.',
      duration_ms: 21_000,
    }),
  ];
  writeFileSync(path, jsonl(records));
  return path;
}
