// A Gemini CLI session followed as the CLI writes it gives, after every write, what a whole read of
// the same bytes gives: the events, the items of every lane and the summary. A legacy document is
// rewritten whole at each change; each corpus document is written again as it grew, message by
// message and, for each reply, step by step as the CLI fills it in (its tokens, its tool calls
// while they run, their results), and only the messages that changed are translated again. A JSONL
// session is cut at every line and handed over whole or as the bytes past the last push.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { legacyWork } from '../src/adapters/gemini-cli/legacy.js';
import {
  type Classification,
  classifyTranscript,
  findAdapter,
  foldTranscript,
  IncrementalItems,
  lineParts,
  listSessions,
  type SourceFile,
  SummaryFold,
  type Transcript,
  Translator,
} from '../src/index.js';
import { finishTranscript } from '../src/load.js';
import { corpus, corpusPath } from './corpus.js';
import { corpusPlatform } from './homes.js';

const gemini = findAdapter('gemini-cli')!;
const encoder = new TextEncoder();
type Json = Record<string, unknown>;

const itemsJson = (c: readonly { laneId: string; classification: Classification }[]) =>
  JSON.stringify(c.map((l) => [l.laneId, l.classification.items]));

function wholeItems(t: Transcript): string {
  const lanes = t.agents.length > 0 ? t.agents : [undefined];
  return itemsJson(
    lanes.flatMap((lane) => {
      const isMain = lane === undefined || lane.parentId === undefined;
      const c = classifyTranscript(t, isMain ? {} : { agentId: lane.id });
      return c.ok ? [{ laneId: c.value.subject.id, classification: c.value }] : [];
    }),
  );
}

function whole(files: readonly SourceFile[]): Transcript {
  const t = gemini.translate(files);
  if (!t.ok) throw new Error(t.error.message);
  return finishTranscript(gemini.id, t.value);
}

/** A session followed push by push, each push checked against a whole read of the same bytes. */
class Followed {
  readonly translator = new Translator(gemini);
  private readonly items = new IncrementalItems();
  private readonly fold = new SummaryFold();
  rewrites = 0;
  /** Messages parsed and translated by each push. */
  readonly work: number[] = [];

  push(pushed: readonly SourceFile[], wholeFiles: readonly SourceFile[], where: string): void {
    const before = legacyWork.messages;
    const r = this.translator.push(pushed);
    if (!r.ok) throw new Error(r.error.message);
    this.work.push(legacyWork.messages - before);
    if (r.value.rewritten) this.rewrites++;
    const t = this.translator.snapshot();
    this.items.update(t, r.value);
    this.fold.update(t, r.value);
    const w = whole(wholeFiles);
    expect(JSON.stringify(t.events), where).toBe(JSON.stringify(w.events));
    expect(JSON.stringify(t.agents), where).toBe(JSON.stringify(w.agents));
    expect(JSON.stringify(t.session), where).toBe(JSON.stringify(w.session));
    expect(t.capabilities, where).toEqual(w.capabilities);
    expect(t.skipped, where).toEqual(w.skipped);
    expect(itemsJson(this.items.all(t)), where).toBe(wholeItems(w));
    expect(this.fold.summary(t), where).toEqual(foldTranscript(w, { prompts: true }));
  }
}

/**
 * The states a reply goes through as the CLI records it: the text and thoughts, then the tokens,
 * then the tool calls while they run, then as they ended. Each is the message as it stood then.
 */
function replySteps(msg: Json): Json[] {
  const { tokens, toolCalls, ...bare } = msg;
  const steps: Json[] = [bare];
  if (tokens !== undefined) steps.push({ ...bare, tokens });
  if (Array.isArray(toolCalls)) {
    const running = toolCalls.map((c: Json) => {
      const { result: _r, resultDisplay: _d, ...call } = c;
      return { ...call, status: 'executing' };
    });
    steps.push({ ...bare, ...(tokens !== undefined ? { tokens } : {}), toolCalls: running });
    steps.push(msg);
  }
  return steps;
}

/** Every document the CLI wrote on the way to `doc`, pretty-printed as it writes them. */
function* writesOf(doc: Json): Generator<{ bytes: Uint8Array; where: string }> {
  const messages = doc.messages as Json[];
  for (const [i, msg] of messages.entries()) {
    const steps = msg.type === 'gemini' ? replySteps(msg) : [msg];
    for (const [s, step] of steps.entries()) {
      const at = typeof step.timestamp === 'string' ? step.timestamp : doc.lastUpdated;
      const now = { ...doc, lastUpdated: at, messages: [...messages.slice(0, i), step] };
      yield {
        bytes: encoder.encode(JSON.stringify(now, null, 2)),
        where: `message ${i + 1} of ${messages.length}, step ${s + 1} of ${steps.length}`,
      };
    }
  }
}

const corpusDocuments = async (): Promise<string[]> => {
  const paths: string[] = [];
  for await (const e of listSessions(corpusPlatform(), { agent: 'gemini-cli' }))
    if (!('ref' in e) && e.path.endsWith('.json')) paths.push(e.path);
  for (const name of ['small.json', 'large.json']) paths.push(corpusPath('more', 'gemini', name));
  return paths;
};

const documents = corpus ? await corpusDocuments() : [];

describe.skipIf(!corpus)('a Gemini CLI session followed as the CLI writes it', () => {
  it('finds the corpus documents', () => {
    expect(documents.length).toBeGreaterThanOrEqual(3);
  });

  it.each(documents.map((p) => [p.slice(p.lastIndexOf('/') + 1), p] as const))(
    'reads each rewrite of %s as a whole read, translating only the messages that changed',
    (_name, path) => {
      const doc = JSON.parse(readFileSync(path, 'utf8')) as Json;
      const followed = new Followed();
      let writes = 0;
      for (const { bytes, where } of writesOf(doc)) {
        const files = [{ path, data: bytes }];
        followed.push(files, files, where);
        writes++;
      }
      expect(writes).toBeGreaterThan((doc.messages as Json[]).length);
      // Read whole once, at the first write; after that each write parses the message it changed
      // or added, and the one before it when the rewrite touched the comma after that one.
      expect(followed.rewrites).toBe(1);
      expect(Math.max(...followed.work.slice(1))).toBeLessThanOrEqual(2);
    },
  );

  it.each(documents.map((p) => [p.slice(p.lastIndexOf('/') + 1), p] as const))(
    'reads %s in parts cut after a line, as a first read of a long document goes, as a whole read',
    (_name, path) => {
      const data = new Uint8Array(readFileSync(path));
      const followed = new Followed();
      const parts = lineParts([{ path, data }], 2048);
      for (const [i, part] of parts.entries()) followed.push(part, part, `part ${i + 1} of ${parts.length}`);
      expect(followed.rewrites).toBe(1);
    },
  );

  it('reads each line of a JSONL session as a whole read, given whole or as the new bytes', () => {
    const path = corpusPath('more', 'gemini', 'jsonl_v040.jsonl');
    const data = new Uint8Array(readFileSync(path));
    const ends: number[] = [];
    for (let i = data.indexOf(10); i !== -1; i = data.indexOf(10, i + 1)) ends.push(i + 1);
    const wholeFollowed = new Followed();
    const tailFollowed = new Followed();
    let last = 0;
    for (const [k, end] of ends.entries()) {
      const files = [{ path, data: data.subarray(0, end) }];
      const where = `after line ${k + 1} of ${ends.length}`;
      wholeFollowed.push(files, files, where);
      const tail = last === 0 ? files : [{ path, data: data.subarray(last, end), start: last }];
      tailFollowed.push(tail, files, where);
      last = end;
    }
  });

  it('reads rewrites that change more than the end of the document as whole reads do', () => {
    const [path] = documents;
    const doc = JSON.parse(readFileSync(path!, 'utf8')) as Json;
    const messages = doc.messages as Json[];
    const write = (d: Json) => [{ path: path!, data: encoder.encode(JSON.stringify(d, null, 2)) }];
    const followed = new Followed();
    followed.push(write(doc), write(doc), 'whole');
    // An early message edited: everything after it moves.
    const edited = messages.map((m, i) => (i === 1 ? { ...m, content: `${String(m.content)} (edited)` } : m));
    followed.push(write({ ...doc, messages: edited }), write({ ...doc, messages: edited }), 'an early edit');
    // The last message dropped, then the document caught mid-write, then whole again.
    const shorter = { ...doc, messages: edited.slice(0, -1) };
    followed.push(write(shorter), write(shorter), 'the last message dropped');
    const full = write({ ...doc, messages: edited })[0]!;
    const cut = [{ path: path!, data: full.data.subarray(0, Math.floor(full.data.length * 0.8)) }];
    followed.push(cut, cut, 'a write caught halfway');
    followed.push([full], [full], 'the write finished');
    // A title recorded before the messages moves every one of them.
    const titled = { summary: 'A title', ...doc, messages: edited };
    followed.push(write(titled), write(titled), 'a title before the messages');
    // A message that is not JSON, then mended.
    const bytes = write({ ...doc, messages: edited })[0]!.data;
    const text = new TextDecoder().decode(bytes);
    const at = text.lastIndexOf('"type"');
    const broken = [
      { path: path!, data: encoder.encode(`${text.slice(0, at)}"type" "oops", ${text.slice(at)}`) },
    ];
    followed.push(broken, broken, 'a message that is not JSON');
    followed.push([{ path: path!, data: bytes }], [{ path: path!, data: bytes }], 'mended');
  });
});
