// cairn's agent wire beside the contract's own code, case by case. The contract's `agent.js` is
// taken from the contract file at run time and loaded next to a stand-in for the helper module it
// imports (support/agent-wire-common.js); both then judge the same generated frames as cairn does:
// decoding, encoding, the outbound check and the failure reply. They must agree on every case,
// except where a difference is listed below with its reason.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import * as cairn from '../src/index.js';
import {
  AGENT_FRAME_TYPES,
  type AgentFrame,
  AgentFrameDecodeError,
  agentFrameFields,
  decodeAgentFrame,
  encodeAgentFrame,
  isNullableSessionConfigOptionArray,
  outboundAgentFrameRejection,
  outboundFailureReply,
} from '../src/index.js';
import { int, pick, prng, type Random } from './random-json.js';
import { addedSource, seedFile } from './support/seed-files.js';

const SEED = '001_8d72abcb7ab950a1.txt';
const AGENT_JS = 'package/dist/workstation/protocol/agent.js';
const seedPath = seedFile(SEED);

/** What the contract's module exports, as far as this test reads it. */
interface SeedAgentWire {
  readonly AGENT_FRAME_SHAPES: Record<string, { required: object; optional?: object }>;
  readonly decodeAgentFrame: (text: string) => unknown;
  readonly encodeAgentFrame: (frame: unknown) => string;
  readonly outboundAgentFrameRejection: (frame: unknown) => string | null;
  readonly outboundFailureReply: (frame: unknown, reason: string) => unknown;
  readonly isNullableSessionConfigOptionArray: (value: unknown) => boolean;
  readonly [name: string]: unknown;
}

// ---------------------------------------------------------------------------------------------
// The differences that are meant, each with its reason. Anything else that differs fails the test.

/** The contract's outbound check throws where cairn answers with a message. */
const SEED_THROWS =
  "the contract's outbound check is meant to be total but throws a TypeError on some malformed " +
  'frames (an inventory that is not a list, a null inventory entry, a frame that is not an object, ' +
  'a `t` naming an Object.prototype member); cairn refuses the same frames with a message';
/** The refusal's wording comes from the helper module the contract does not include. */
const STAND_IN_TEXT =
  'the refusal comes from decoding, whose wording is in the helper module the contract does not ' +
  'include; the stand-in words it its own way, so only the verdict is compared';

// ---------------------------------------------------------------------------------------------
// Valid frames, generated from the contract's frame table as written there (not from cairn's).

type Gen = (random: Random) => unknown;
interface FrameSpec {
  readonly required: Readonly<Record<string, Gen>>;
  readonly optional?: Readonly<Record<string, Gen>>;
}

const STRINGS = ['', 'a', 'drv_01JH4Q8Z6M', 'claude-code', 'é ✓ 日本', 'x'.repeat(64), 'null', '0'];
const WHOLE = [0, 1, 7, 42, 1_767_225_600_000, 2 ** 31, 2 ** 53 - 1];
const CODES = [-32000, -32603, 0, 401, -2_147_483_648, 2_147_483_647];

const str: Gen = (r) => pick(r, STRINGS);
const whole: Gen = (r) => pick(r, WHOLE);
const bool: Gen = (r) => r() < 0.5;
const yes: Gen = () => true;
const orNull =
  (gen: Gen): Gen =>
  (r) =>
    r() < 0.25 ? null : gen(r);
const listOf =
  (gen: Gen, most = 3): Gen =>
  (r) =>
    Array.from({ length: int(r, most + 1) }, () => gen(r));
const object =
  (spec: FrameSpec): Gen =>
  (r) =>
    build(r, spec);
const oneOfValues =
  (...values: unknown[]): Gen =>
  (r) =>
    pick(r, values);
const strings: Gen = listOf(str);
const stringRecord: Gen = (r) => Object.fromEntries((strings(r) as string[]).map((v, i) => [`K${i}`, v]));
const anyJson: Gen = (r) => pick(r, [null, 0, 'x', [], { cwd: '/w' }, [1, 'a'], true]);
const payload: Gen = (r) =>
  pick(r, [{}, { sessionUpdate: 'agent_message_chunk' }, { n: 1, deep: { a: [1] } }]);

const image = object({
  required: { type: () => 'image', data: str, mimeType: str },
  optional: { uri: orNull(str) },
});
const agentInfo = object({ required: { name: str }, optional: { title: orNull(str), version: orNull(str) } });
const selectOption = object({ required: { value: str, name: str }, optional: { description: orNull(str) } });
const selectGroup = object({ required: { group: str, name: str, options: listOf(selectOption) } });
const configOption: Gen = (r) =>
  r() < 0.5
    ? build(r, {
        required: { id: str, name: str, type: () => 'boolean', currentValue: bool },
        optional: { description: orNull(str), category: orNull(str) },
      })
    : build(r, {
        required: {
          id: str,
          name: str,
          type: () => 'select',
          currentValue: str,
          options: (rr) => (rr() < 0.5 ? listOf(selectOption)(rr) : listOf(selectGroup)(rr)),
        },
        optional: { description: orNull(str), category: orNull(str) },
      });
const configOptions = orNull(listOf(configOption));
const authMethods = orNull(
  listOf(
    object({ required: { id: str, name: str }, optional: { description: orNull(str), type: orNull(str) } }),
  ),
);
const bridge = object({
  required: { key: str, name: str },
  optional: {
    cliInstalled: bool,
    adapterInstalled: yes,
    version: orNull(str),
    supportsSteering: yes,
    supportsImageInput: yes,
  },
});
const resumeSession = object({ required: { sessionRef: str, journalMaxSeq: whole, agentAlive: bool } });
const nativeSession = object({
  required: { nativeSessionId: str, title: str, updatedAtEpochMs: whole, cwd: str },
});
const command = object({ required: { name: str, description: str }, optional: { inputHint: orNull(str) } });

const SPECS: Record<string, FrameSpec> = {
  agent_hello: { required: { ticket: str }, optional: { bridges: listOf(bridge) } },
  agent_ready: { required: { generation: str, agentWire: whole } },
  agent_resume_offer: { required: { sessions: listOf(resumeSession) } },
  heartbeat: {
    required: { seq: whole, sentAtEpochMs: whole },
    optional: { sessions: listOf(resumeSession) },
  },
  heartbeat_ack: { required: { seq: whole } },
  agent_open: {
    required: { id: str, sessionRef: str, agentKey: str, bridge: str, cwd: str, shell: str },
    optional: {
      env: stringRecord,
      pathPrepend: strings,
      agentEnv: stringRecord,
      command: orNull(str),
      args: strings,
      nativeSessionId: orNull(str),
      resumeFromSeq: whole,
      backfill: bool,
    },
  },
  agent_opened: {
    required: { id: str, ok: bool },
    optional: {
      nativeSessionId: orNull(str),
      error: orNull(str),
      supportsSteering: yes,
      steeringTimings: strings,
      reloaded: yes,
      agentInfo,
      supportsImageInput: yes,
      configOptions,
      authMethods,
      errorCode: (r) => pick(r, CODES),
    },
  },
  agent_prompt: { required: { sessionRef: str, text: str }, optional: { images: listOf(image) } },
  agent_answer: { required: { sessionRef: str, requestId: str, outcome: str } },
  agent_interrupt: { required: { sessionRef: str } },
  agent_close: { required: { sessionRef: str } },
  agent_event: { required: { sessionRef: str, seq: whole, eventName: str, payload } },
  agent_turn_done: {
    required: { sessionRef: str, seq: whole, status: str },
    optional: {
      stopReason: str,
      nativeSessionId: orNull(str),
      error: orNull(str),
      authMethods,
      errorCode: (r) => pick(r, CODES),
    },
  },
  agent_event_ack: { required: { sessionRef: str, throughSeq: whole } },
  agent_session_lost: { required: { sessionRef: str, action: str } },
  agent_list_native: { required: { id: str, bridge: str, query: anyJson } },
  agent_native_sessions: {
    required: { id: str, ok: bool },
    optional: { sessions: listOf(nativeSession), error: orNull(str) },
  },
  agent_verify: {
    required: { id: str, bridge: str, query: anyJson },
    optional: { timeoutMs: orNull((r) => pick(r, [1, 1.5, 15_000, 1e12])) },
  },
  agent_authenticate: { required: { id: str, bridge: str, methodId: str, query: anyJson } },
  agent_verified: {
    required: { id: str, ok: bool },
    optional: {
      authMethods,
      authenticated: yes,
      sessionError: orNull(str),
      error: orNull(str),
      availableCommands: orNull(listOf(command)),
      configOptions,
    },
  },
  agent_authenticated: { required: { id: str, ok: bool }, optional: { pending: yes, error: orNull(str) } },
  agent_auth_url: { required: { id: str, elicitationId: str, url: str } },
  agent_auth_url_done: { required: { id: str, elicitationId: str } },
  agent_install: { required: { id: str, bridge: str } },
  agent_installed: {
    required: { id: str, ok: bool },
    optional: {
      adapterInstalled: yes,
      alreadyInstalled: bool,
      unsupported: bool,
      error: orNull(str),
      pinnedVersionUnavailable: object({ required: { pinned: str, installedInstead: str } }),
    },
  },
  agent_steer: {
    required: { id: str, sessionRef: str, text: str },
    optional: { images: listOf(image), priority: str },
  },
  agent_steered: {
    required: { id: str, ok: bool },
    optional: { outcome: oneOfValues('injected', 'promptRequired'), error: orNull(str) },
  },
  agent_backfill_events: {
    required: { id: str, events: listOf(object({ required: { eventName: str, payload } })) },
  },
  agent_backfill_done: { required: { id: str, ok: bool, count: whole }, optional: { error: orNull(str) } },
  agent_set_config_option: {
    required: { id: str, sessionRef: str, configId: str, value: (r) => (r() < 0.5 ? str(r) : bool(r)) },
  },
  agent_config_option_set: {
    required: { id: str, ok: bool },
    optional: { configOptions, error: orNull(str) },
  },
};

/** An object with every required field and, unless `full`, each optional one at even odds. */
function build(random: Random, spec: FrameSpec, full = false): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, gen] of Object.entries(spec.required)) out[key] = fresh(gen(random));
  for (const [key, gen] of Object.entries(spec.optional ?? {})) {
    if (full || random() < 0.5) out[key] = fresh(gen(random));
  }
  return out;
}

function frameOf(random: Random, type: string, full = false): Record<string, unknown> {
  return { t: type, ...build(random, SPECS[type]!, full) };
}

// ---------------------------------------------------------------------------------------------
// Changes to valid frames: edge numbers, other types, nulls, missing and extra fields.

const REMOVE = Symbol('remove');
/** Numbers text can hold that JSON.stringify never writes: a negative zero and past the doubles. */
const TEXT_ONLY_NUMBERS = ['-0', '1e400', '-1e400', '1E2', '0.5e1'];

const EDGE_NUMBERS = [
  1.5,
  -0.25,
  -0,
  0,
  -1,
  1e21,
  -1e21,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  2 ** 31,
  -(2 ** 31) - 1,
  5e-324,
  1e308,
  1_767_225_600_000.5,
];
const OTHER_VALUES = [null, '', '7', 'x', true, false, [], {}, [1], { a: 1 }, 'image', 'injected', 'select'];
/** Values only an object frame can hold; text never carries them. */
const OBJECT_ONLY = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, undefined];

type Path = (string | number)[];

/** Every field and element path inside `value`. */
function pathsOf(value: unknown, prefix: Path = []): Path[] {
  const out: Path[] = [];
  if (Array.isArray(value)) {
    value.forEach((element, index) => {
      out.push([...prefix, index], ...pathsOf(element, [...prefix, index]));
    });
  } else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (prefix.length === 0 && key === 't') continue;
      out.push([...prefix, key], ...pathsOf(inner, [...prefix, key]));
    }
  }
  return out;
}

/** The containers (the frame, nested objects) a key can be added to. */
function objectPaths(value: unknown, prefix: Path = []): Path[] {
  const here = value !== null && typeof value === 'object' && !Array.isArray(value) ? [prefix] : [];
  if (value === null || typeof value !== 'object') return here;
  return [
    ...here,
    ...Object.entries(value).flatMap(([key, inner]) =>
      objectPaths(inner, [...prefix, Array.isArray(value) ? Number(key) : key]),
    ),
  ];
}

function setAt(root: Record<string, unknown>, path: Path, value: unknown): void {
  let at: Record<string | number, unknown> = root;
  for (const step of path.slice(0, -1)) at = at[step] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (value === REMOVE) {
    if (Array.isArray(at)) at.splice(last as number, 1);
    else delete at[last];
  } else {
    at[last] = fresh(value);
  }
}

/** A value from the shared pools, copied so that no two places in the cases hold one object. */
function fresh(value: unknown): unknown {
  return value !== null && typeof value === 'object' ? structuredClone(value) : value;
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

interface Case {
  readonly label: string;
  readonly frame: Record<string, unknown>;
  /** Whether text can carry it (no NaN, infinity or undefined inside). */
  readonly textual: boolean;
}

function* systematicCases(random: Random): Generator<Case> {
  for (const type of AGENT_FRAME_TYPES) {
    const full = frameOf(random, type, true);
    yield { label: `${type} full`, frame: full, textual: true };
    yield { label: `${type} bare`, frame: frameOf(random, type, false), textual: true };
    yield { label: `${type} extra`, frame: { ...full, futureKey: { a: [1] }, alsoNew: null }, textual: true };
    for (const path of pathsOf(full)) {
      const where = path.join('.');
      for (const value of [...EDGE_NUMBERS, ...OTHER_VALUES, REMOVE]) {
        const frame = clone(full);
        setAt(frame, path, value);
        yield { label: `${type} ${where} = ${pretty(value)}`, frame, textual: true };
      }
      for (const value of OBJECT_ONLY) {
        const frame = clone(full);
        setAt(frame, path, value);
        yield { label: `${type} ${where} = ${pretty(value)}`, frame, textual: false };
      }
    }
  }
}

function* randomCases(random: Random, count: number): Generator<Case> {
  const types = [...AGENT_FRAME_TYPES, 'agent_teleport', 'constructor', 'toString'];
  for (let i = 0; i < count; i++) {
    const type = pick(random, AGENT_FRAME_TYPES);
    const frame = frameOf(random, type);
    const changes: string[] = [];
    let textual = true;
    for (let n = int(random, 4); n > 0; n--) {
      const paths = pathsOf(frame);
      const kind = int(random, 10);
      if (kind < 6 && paths.length > 0) {
        const path = pick(random, paths);
        const pool = [...EDGE_NUMBERS, ...OTHER_VALUES, REMOVE, ...OBJECT_ONLY];
        const value = pick(random, pool);
        if (OBJECT_ONLY.includes(value as never)) textual = false;
        setAt(frame, path, value);
        changes.push(`${path.join('.')} = ${pretty(value)}`);
      } else if (kind < 8) {
        const path = pick(random, objectPaths(frame));
        const key = pick(random, ['futureKey', 'seq', 'id', 'ok', 'images', 'errorCode', '__proto__', 'x']);
        const holder =
          path.length === 0
            ? frame
            : (path.reduce<unknown>((at, step) => (at as never)[step], frame) as Record<string, unknown>);
        Object.defineProperty(holder, key, {
          value: fresh(pick(random, OTHER_VALUES)),
          enumerable: true,
          writable: true,
          configurable: true,
        });
        changes.push(`+${[...path, key].join('.')}`);
      } else if (kind < 9) {
        frame.t = pick(random, types);
        changes.push(`t = ${String(frame.t)}`);
      } else {
        const other = frameOf(random, pick(random, AGENT_FRAME_TYPES));
        Object.assign(frame, other, { t: frame.t });
        changes.push('fields of another frame');
      }
    }
    yield { label: `#${i} ${type}: ${changes.join(', ') || 'valid'}`, frame, textual };
  }
}

function pretty(value: unknown): string {
  if (value === REMOVE) return '(removed)';
  if (Object.is(value, -0)) return '-0';
  if (value === undefined) return 'undefined';
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value);
}

/** The texts a case is decoded from: as encoded, and with its first number written otherwise. */
function textsOf(random: Random, frame: Record<string, unknown>): string[] {
  const text = JSON.stringify(frame);
  const texts = [text];
  if (/:-?\d/.test(text)) texts.push(text.replace(/:-?\d[\d.e+-]*/, `:${pick(random, TEXT_ONLY_NUMBERS)}`));
  return texts;
}

// ---------------------------------------------------------------------------------------------

type Verdict =
  | { readonly accepted: true }
  | { readonly accepted: false; readonly message?: string; readonly threw?: true };

interface Tally {
  cases: number;
  same: number;
  /** Of `same`: accepted by both (the rest of `same` are refusals in the same words). */
  accepted: number;
  sameVerdictOnly: number;
  seedThrows: number;
  different: string[];
}

const report: Record<string, Tally> = {};

/** A fresh count under `name`, kept for the summary printed at the end. */
function newTally(name: string): Tally {
  const tally: Tally = { cases: 0, same: 0, accepted: 0, sameVerdictOnly: 0, seedThrows: 0, different: [] };
  report[name] = tally;
  return tally;
}

let seed: SeedAgentWire | undefined;
let scratch: string | undefined;

beforeAll(async () => {
  if (seedPath === undefined) return;
  scratch = mkdtempSync(join(tmpdir(), 'cairn-seed-agent-wire-'));
  const diff = readFileSync(seedPath, 'utf8');
  writeFileSync(join(scratch, 'agent.js'), addedSource(diff, AGENT_JS));
  copyFileSync(
    join(dirname(fileURLToPath(import.meta.url)), 'support/agent-wire-common.js'),
    join(scratch, 'common.js'),
  );
  writeFileSync(join(scratch, 'package.json'), '{"type":"module"}\n');
  seed = (await import(/* @vite-ignore */ pathToFileURL(join(scratch, 'agent.js')).href)) as SeedAgentWire;
});

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

afterAll(() => {
  if (Object.keys(report).length === 0) return;
  const lines = Object.entries(report).map(
    ([name, t]) =>
      `  ${name}: ${t.cases} cases; ${t.same} same${t.accepted > 0 ? ` (${t.accepted} of them accepted by both)` : ''}; ${t.sameVerdictOnly} same verdict, text not ` +
      `compared; ${t.seedThrows} refused by both, the contract by throwing; ${t.different.length} different`,
  );
  const reasons = [`  text not compared: ${STAND_IN_TEXT}`, `  contract throws: ${SEED_THROWS}`];
  console.log(
    `agent wire against the contract, ${AGENT_FRAME_TYPES.length} frame types:\n${lines.join('\n')}\n${reasons.join('\n')}`,
  );
});

describe("the contract's names", () => {
  it('are exported for the types it names, beside cairn own names for them', () => {
    expectTypeOf<cairn.ImageBlockWire>().toEqualTypeOf<cairn.ImageBlock>();
    expectTypeOf<cairn.AgentInfoWire>().toEqualTypeOf<cairn.AgentInfo>();
    expectTypeOf<cairn.SelectOptionWire>().toEqualTypeOf<cairn.SelectOption>();
    expectTypeOf<cairn.SelectGroupWire>().toEqualTypeOf<cairn.SelectGroup>();
    expectTypeOf<cairn.SessionConfigOptionWire>().toEqualTypeOf<cairn.SessionConfigOption>();
    expectTypeOf<cairn.ConfigOptionValueWire>().toEqualTypeOf<cairn.ConfigOptionValue>();
    expect(isNullableSessionConfigOptionArray(undefined)).toBe(true);
    expect(isNullableSessionConfigOptionArray(null)).toBe(true);
    expect(isNullableSessionConfigOptionArray([])).toBe(true);
    expect(
      isNullableSessionConfigOptionArray([{ id: 'm', name: 'M', type: 'boolean', currentValue: 1 }]),
    ).toBe(false);
  });
});

describe.skipIf(seedPath === undefined)("the agent wire against the contract's own code", () => {
  const random = prng(0x5eed_0014);
  const cases = [...systematicCases(random), ...randomCases(random, 4000)];

  it('loads the contract and names the same frame types and fields', () => {
    expect(seed).toBeDefined();
    const shapes = seed!.AGENT_FRAME_SHAPES;
    expect(Object.keys(shapes)).toEqual([...AGENT_FRAME_TYPES]);
    expect(Object.keys(SPECS)).toEqual([...AGENT_FRAME_TYPES]);
    for (const type of AGENT_FRAME_TYPES) {
      const fields = agentFrameFields(type);
      expect(Object.keys(shapes[type]!.required), type).toEqual(Object.keys(fields.required));
      expect(Object.keys(shapes[type]!.optional ?? {}), type).toEqual(Object.keys(fields.optional));
      expect(Object.keys(SPECS[type]!.required), type).toEqual(Object.keys(fields.required));
      expect(Object.keys(SPECS[type]!.optional ?? {}), type).toEqual(Object.keys(fields.optional));
    }
  });

  it('has the same version and floor constants', () => {
    const names = Object.keys(seed!).filter((name) => name.startsWith('AGENT_WIRE_'));
    expect(names.length).toBe(15);
    for (const name of names) expect((cairn as Record<string, unknown>)[name], name).toBe(seed![name]);
  });

  it('exports what the contract exports under the same names', () => {
    const missing = Object.keys(seed!).filter((name) => !(name in cairn));
    expect(missing).toEqual([]);
  });

  it('decodes as the contract does', () => {
    const tally = newTally('decode');
    const texts = cases
      .filter((c) => c.textual)
      .flatMap((c) => textsOf(random, c.frame).map((text) => ({ c, text })));
    for (const { c, text: real } of texts) {
      const theirs = verdictOf(() => seed!.decodeAgentFrame(real));
      const ours = verdictOf(() => decodeAgentFrame(real), AgentFrameDecodeError);
      tally.cases++;
      if (theirs.verdict.accepted !== ours.verdict.accepted) {
        tally.different.push(
          `${c.label}: contract ${show(theirs.verdict)}, cairn ${show(ours.verdict)}: ${real.slice(0, 300)}`,
        );
      } else if (theirs.verdict.accepted) {
        // Both hand back the parsed object, unchanged.
        expect(ours.value, c.label).toEqual(theirs.value);
        tally.same++;
        tally.accepted++;
      } else {
        tally.sameVerdictOnly++;
      }
    }
    expect(tally.different.slice(0, 20)).toEqual([]);
    expect(tally.cases).toBeGreaterThan(5000);
  });

  it('encodes as the contract does', () => {
    const tally = newTally('encode');
    for (const c of cases) {
      const theirs = verdictOf(() => seed!.encodeAgentFrame(c.frame));
      const ours = verdictOf(() => encodeAgentFrame(c.frame as unknown as AgentFrame));
      tally.cases++;
      if (theirs.value === ours.value && theirs.verdict.accepted === ours.verdict.accepted) tally.same++;
      else tally.different.push(c.label);
    }
    expect(tally.different.slice(0, 20)).toEqual([]);
  });

  it('refuses to send what the contract refuses, in its words', () => {
    const tally = newTally('outbound');
    const odd: Case[] = [
      { label: 'null frame', frame: null as never, textual: false },
      { label: 'list frame', frame: [] as never, textual: false },
      {
        label: 'inventory not a list',
        frame: { t: 'heartbeat', seq: 1, sentAtEpochMs: 1, sessions: {} },
        textual: true,
      },
      { label: 'null inventory entry', frame: { t: 'agent_resume_offer', sessions: [null] }, textual: true },
      { label: 't = constructor', frame: { t: 'constructor' }, textual: true },
    ];
    const cyclic: Record<string, unknown> = {
      t: 'agent_event',
      sessionRef: 'r',
      seq: 1,
      eventName: 'e',
      payload: {},
    };
    (cyclic.payload as Record<string, unknown>).self = cyclic;
    odd.push({ label: 'cyclic payload', frame: cyclic, textual: false });
    odd.push({ label: 'bigint payload', frame: { ...cyclic, payload: { n: 10n } }, textual: false });
    odd.push({ label: 'bigint seq', frame: { ...cyclic, payload: {}, seq: 10n }, textual: false });
    for (const c of [...cases, ...odd]) {
      const theirs = verdictOf(() => seed!.outboundAgentFrameRejection(c.frame), undefined, true);
      const ours = verdictOf(
        () => outboundAgentFrameRejection(c.frame as unknown as AgentFrame),
        undefined,
        true,
      );
      tally.cases++;
      if (ours.verdict.accepted === false && ours.verdict.threw) {
        tally.different.push(`${c.label}: cairn threw ${ours.verdict.message}`);
        continue;
      }
      if (theirs.verdict.accepted !== ours.verdict.accepted) {
        tally.different.push(`${c.label}: contract ${show(theirs.verdict)}, cairn ${show(ours.verdict)}`);
        continue;
      }
      if (theirs.verdict.accepted || ours.verdict.accepted) {
        tally.same++;
        tally.accepted++;
        continue;
      }
      if (theirs.verdict.threw) {
        tally.seedThrows++; // SEED_THROWS
        continue;
      }
      if (theirs.verdict.message?.startsWith('[stand-in]')) {
        tally.sameVerdictOnly++; // STAND_IN_TEXT
        continue;
      }
      if (theirs.verdict.message === ours.verdict.message) tally.same++;
      else
        tally.different.push(
          `${c.label}: contract says ${theirs.verdict.message}, cairn ${ours.verdict.message}`,
        );
    }
    expect(tally.different.slice(0, 20)).toEqual([]);
    // The messages the contract words itself were met, and checked word for word.
    expect(tally.same - tally.accepted).toBeGreaterThan(500);
  });

  it('answers a reply it cannot send as the contract does', () => {
    const tally = newTally('failureReply');
    const reasons = ['agent_opened.errorCode must be a whole number, got null', 'x', ''];
    for (const c of cases) {
      for (const id of [c.frame.id, 'req-1', '', 3, undefined]) {
        const frame = { ...c.frame, id };
        const reason = pick(random, reasons);
        const theirs = seed!.outboundFailureReply(frame, reason);
        const ours = outboundFailureReply(frame as unknown as { t: string }, reason);
        tally.cases++;
        if (JSON.stringify(theirs) === JSON.stringify(ours)) tally.same++;
        else
          tally.different.push(
            `${c.label} id=${String(id)}: contract ${JSON.stringify(theirs)}, cairn ${JSON.stringify(ours)}`,
          );
      }
    }
    expect(tally.different.slice(0, 20)).toEqual([]);
  });

  it('judges config option snapshots as the contract does', () => {
    const tally = newTally('configOptions');
    const values: unknown[] = [undefined, null, [], {}, 'x', [null], [{}]];
    for (let i = 0; i < 1500; i++) {
      const list = listOf(configOption, 4)(random) as unknown[];
      if (list.length > 0 && random() < 0.6) {
        const paths = pathsOf(list);
        const path = pick(random, paths);
        setAt(list as never, path, pick(random, [...OTHER_VALUES, REMOVE, 1.5, 'boolean']));
      }
      values.push(list);
    }
    for (const value of values) {
      tally.cases++;
      if (seed!.isNullableSessionConfigOptionArray(value) === isNullableSessionConfigOptionArray(value))
        tally.same++;
      else tally.different.push(JSON.stringify(value));
    }
    expect(tally.different.slice(0, 20)).toEqual([]);
  });
});

function verdictOf(
  run: () => unknown,
  onlyError?: new (...args: never[]) => Error,
  returnsMessage = false,
): { verdict: Verdict; value?: unknown } {
  try {
    const value = run();
    if (returnsMessage) {
      return value === null
        ? { verdict: { accepted: true } }
        : { verdict: { accepted: false, message: value as string } };
    }
    return { verdict: { accepted: true }, value };
  } catch (error) {
    if (onlyError && !(error instanceof onlyError)) throw error;
    const message = error instanceof Error ? error.message : String(error);
    return { verdict: { accepted: false, message, ...(returnsMessage ? { threw: true as const } : {}) } };
  }
}

function show(verdict: Verdict): string {
  if (verdict.accepted) return 'accepts';
  return `refuses${verdict.message === undefined ? '' : ` (${verdict.message})`}`;
}
