// A Gemini CLI session kept as one JSON document, rewritten whole at every change as the CLI writes
// it, followed the way the daemon follows it: after each rewrite the whole document is handed to the
// translation, then the items of every lane and the summary take what the push did. The rewrites
// go through a turn's steps (a reply with its tokens, its tool calls recorded, their results, the
// next prompt), so the last message changes in place as often as a message is added. Printed per
// length: the median and p95 time of one rewrite's read, translated whole (before) and translated
// only where the document changed (after), in one sitting.
//
// `node scripts/bench/gemini-append.mjs [--messages 1000,10000] [--appends N] [--mode both|whole|incremental]`;
// the library must be built (`npm run build`). A profile: run it under `node --cpu-prof`.
import { parseArgs } from 'node:util';
import {
  findAdapter,
  IncrementalItems,
  SummaryFold,
  Translator,
} from '../../packages/transcript/dist/index.js';
import { median, percentile } from './stats.mjs';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '1000,10000' },
    appends: { type: 'string', default: '40' },
    mode: { type: 'string', default: 'both' },
  },
});
const lengths = values.messages.split(',').map(Number);
const appends = Number(values.appends);
const modes = values.mode === 'both' ? ['whole', 'incremental'] : [values.mode];
const T0 = Date.parse('2026-01-05T09:00:00.000Z');
const PATH = '/bench/.gemini/tmp/0123/chats/session-2026-01-05T09-00-0b23371a.json';

const iso = (n) => new Date(T0 + n * 1000).toISOString();
const words = (n, seed) => Array.from({ length: n }, (_, i) => `word${(seed * 31 + i) % 997}`).join(' ');

/** A conversation of `n` messages, as Gemini CLI records it, and a writer of its next steps. */
class Conversation {
  constructor(n) {
    this.doc = {
      sessionId: '0b23371a-ce2e-4b1c-81a0-44af5d94d9ce',
      projectHash: '0123',
      startTime: iso(0),
      lastUpdated: iso(0),
      messages: [],
    };
    this.step = 0;
    while (this.doc.messages.length < n) this.next();
  }

  /** One change, as the CLI makes it: the next step of a turn. */
  next() {
    const m = this.doc.messages;
    const k = m.length;
    const at = iso(k + this.step);
    const phase = this.step++ % 4;
    if (phase === 0) m.push({ id: `u${k}`, timestamp: at, type: 'user', content: words(40, k) });
    else if (phase === 1)
      m.push({
        id: `g${k}`,
        timestamp: at,
        type: 'gemini',
        content: words(80, k),
        thoughts: [{ subject: 'Planning', description: words(30, k + 1), timestamp: at }],
        tokens: { input: 1000 + k, output: 50, cached: 800, thoughts: 20, tool: 0, total: 1070 + k },
        model: 'gemini-2.5-pro',
      });
    else if (phase === 2)
      m.at(-1).toolCalls = [
        {
          id: `call-${k}`,
          name: 'read_file',
          args: { absolute_path: `/src/f${k}.ts` },
          status: 'executing',
          timestamp: at,
        },
      ];
    else {
      const call = m.at(-1).toolCalls[0];
      call.status = 'success';
      call.result = [
        { functionResponse: { id: call.id, name: call.name, response: { output: words(60, k) } } },
      ];
      call.resultDisplay = words(10, k);
    }
    this.doc.lastUpdated = at;
  }

  bytes() {
    return new TextEncoder().encode(JSON.stringify(this.doc, null, 2));
  }
}

const gemini = findAdapter('gemini-cli');
const adapters = { whole: { ...gemini, incremental: undefined }, incremental: gemini };

/** Milliseconds per rewrite read by one followed session, the document growing from `n` messages. */
function follow(mode, n) {
  const conversation = new Conversation(n);
  const translator = new Translator(adapters[mode]);
  const items = new IncrementalItems();
  const fold = new SummaryFold();
  const read = (data) => {
    const pushed = translator.push([{ path: PATH, data }]);
    if (!pushed.ok) throw new Error(pushed.error.message);
    const t = translator.snapshot();
    items.update(t, pushed.value);
    fold.update(t, pushed.value);
    fold.summary(t);
    return t;
  };
  read(conversation.bytes());
  const times = [];
  let size = 0;
  for (let i = 0; i < appends; i++) {
    conversation.next();
    const data = conversation.bytes();
    size = data.length;
    const started = performance.now();
    read(data);
    times.push(performance.now() - started);
  }
  return { times, size };
}

console.log(
  'Gemini CLI document rewritten in place, followed: one rewrite read (translation, items, summary)',
);
for (const n of lengths) {
  const row = [];
  for (const mode of modes) {
    const { times, size } = follow(mode, n);
    row.push(
      `${mode === 'whole' ? 'before (whole)' : 'after (incremental)'} median ${median(times).toFixed(2)} ms, p95 ${percentile(times, 95).toFixed(2)} ms`,
    );
    if (mode === modes.at(-1)) row.unshift(`${n} messages (${(size / 1024 / 1024).toFixed(1)} MB):`);
  }
  console.log(`  ${row.join('  ')}`);
}
