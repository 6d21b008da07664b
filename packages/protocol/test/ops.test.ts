import type { TObject } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import {
  impliedErrors,
  isRoleAllowed,
  OP_ATTRIBUTES,
  OP_ERROR_CODES,
  OP_FIXTURES,
  OP_NAMES,
  OP_SCHEMAS,
  opErrors,
  opSpec,
  validate,
  validateRequest,
  validateResponse,
} from '../src/index.js';
import { mutations } from './mutate.js';

const REQUIRED_OPS = [
  'hello',
  'ping',
  'session_list',
  'session_search',
  'transcript_read',
  'transcript_items_read',
  'session_summary_read',
  'session_dump_write',
  'dump_presets_read',
  'topic_subscribe',
  'topic_unsubscribe',
  'shutdown',
  'session_kill',
  'session_env_read',
  'session_fork_origin',
  'session_last_live_remove',
  'session_marks_read',
  'session_marks_write',
  'usage_read',
  'session_links_read',
  'session_handoff_preview',
];

/** Arguments the contract leaves open: a field the op does not define is ignored, not refused. */
const OPEN_ARGS: readonly string[] = ['session_dump_write', 'dump_presets_read'];

describe('the op table', () => {
  it('holds exactly the ops of this protocol, each with attributes, schemas and fixtures', () => {
    expect([...OP_NAMES].sort()).toEqual([...REQUIRED_OPS].sort());
    expect(Object.keys(OP_SCHEMAS).sort()).toEqual([...OP_NAMES].sort());
    expect(Object.keys(OP_FIXTURES).sort()).toEqual([...OP_NAMES].sort());
  });

  it.each(OP_NAMES)('%s lists only its own op-level codes, and opErrors adds the implied ones', (op) => {
    const { errors } = OP_ATTRIBUTES[op];
    const implied = impliedErrors(OP_ATTRIBUTES[op]);
    for (const code of errors) expect(OP_ERROR_CODES).toContain(code);
    for (const code of errors) expect(implied).not.toContain(code);
    expect(new Set(errors).size).toBe(errors.length);
    expect(opErrors(op)).toEqual([...implied, ...errors]);
  });

  it('gives dump_presets_read and session_dump_write the rows the contract has', () => {
    expect(OP_ATTRIBUTES.dump_presets_read).toEqual({
      plane: 'control',
      roles: ['session', 'user'],
      needs_hello: true,
      locality: 'instance-local',
      errors: [],
    });
    expect(OP_ATTRIBUTES.session_dump_write.errors).toEqual(['not_found']);
    expect(OP_ATTRIBUTES.session_kill.roles).toEqual(['user']);
    expect(opErrors('session_fork_origin')).toContain('unsupported');
  });

  it('answers opSpec with the attributes and the schemas of the op asked for', () => {
    const spec = opSpec('session_dump_write');
    expect(spec.attributes).toBe(OP_ATTRIBUTES.session_dump_write);
    expect(spec.request).toBe(OP_SCHEMAS.session_dump_write.request);
    expect(spec.response.properties.entries).toBeDefined();
    expect(spec.attributes.roles).toEqual(['user']);
  });

  it('lets a session read its own transcript but not list, search, dump or shut down', () => {
    expect(isRoleAllowed('transcript_items_read', 'session')).toBe(true);
    expect(isRoleAllowed('dump_presets_read', 'session')).toBe(true);
    for (const op of ['session_list', 'session_search', 'session_dump_write', 'shutdown'] as const) {
      expect(isRoleAllowed(op, 'session')).toBe(false);
      expect(isRoleAllowed(op, 'user')).toBe(true);
    }
  });

  it('needs hello for everything but hello and ping', () => {
    const without = OP_NAMES.filter((op) => !OP_ATTRIBUTES[op].needs_hello);
    expect(without.sort()).toEqual(['hello', 'ping']);
  });
});

describe.each(OP_NAMES)('%s fixtures', (op) => {
  const { request, response } = OP_FIXTURES[op];
  const schemas = OP_SCHEMAS[op];

  it('validate: the request as a server reads it, the reply as a client does', () => {
    expect(request.op).toBe(op);
    const read = validateRequest(request);
    expect(read).toEqual({ ok: true, op, request });
    expect(validateResponse(op, response)).toEqual({ ok: true, value: response });
    // The op's own parts stand on their own too.
    const { request_id: _r, op: _o, ...args } = request;
    const { ok: _k, request_id: _i, ...result } = response;
    expect(validate(schemas.args, args).ok).toBe(true);
    expect(validate(schemas.result, result).ok).toBe(true);
  });

  const cases = [
    ...mutations(schemas.request as TObject, request).map((m) => ({
      ...m,
      side: 'request',
      schema: schemas.request,
    })),
    ...mutations(schemas.response as TObject, response).map((m) => ({
      ...m,
      side: 'response',
      schema: schemas.response,
    })),
  ];
  it.each(cases)('$side $label is refused, naming $field', ({ schema, value, field }) => {
    const checked = validate(schema, value);
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.error.code).toBe('invalid_args');
    expect(checked.error.field.startsWith(field)).toBe(true);
    expect(checked.error.message).toContain(checked.error.field);
  });

  it.skipIf(OPEN_ARGS.includes(op))('refuses an argument the op does not have, naming it', () => {
    const checked = validate(schemas.request, { ...request, sinse_at: 5 });
    expect(checked).toMatchObject({ ok: false, error: { code: 'invalid_args', field: '/sinse_at' } });
  });

  it.runIf(OPEN_ARGS.includes(op))('takes an argument the op does not have, as the contract does', () => {
    expect(validate(schemas.request, { ...request, sinse_at: 5 }).ok).toBe(true);
  });
});

describe('validateRequest', () => {
  it('names bad_request, unknown_op and invalid_args the way a server dispatches', () => {
    expect(validateRequest('ping')).toMatchObject({ ok: false, error: { code: 'bad_request' } });
    expect(validateRequest({ op: 'ping' })).toMatchObject({
      ok: false,
      error: { code: 'bad_request', field: '/request_id' },
    });
    expect(validateRequest({ request_id: '9' })).toMatchObject({
      ok: false,
      request_id: '9',
      error: { code: 'bad_request', field: '/op' },
    });
    expect(validateRequest({ request_id: '9', op: 'session_rename', sid: 'x' })).toMatchObject({
      ok: false,
      request_id: '9',
      error: { code: 'unknown_op' },
    });
    expect(validateRequest({ request_id: '9', op: 'toString' })).toMatchObject({
      error: { code: 'unknown_op' },
    });
  });

  it('names the bad field deep inside arguments', () => {
    const request = { ...OP_FIXTURES.session_dump_write.request, types: ['@howto', 'Tool:Bash'] };
    expect(validateRequest(request)).toMatchObject({
      ok: false,
      request_id: request.request_id,
      error: { code: 'invalid_args', field: '/types/1' },
    });
    const since = { ...OP_FIXTURES.transcript_items_read.request, since_at: '-10m' };
    expect(validateRequest(since)).toMatchObject({ error: { code: 'invalid_args', field: '/since_at' } });
    const sid = { ...OP_FIXTURES.transcript_read.request, sid: '../../etc/passwd' };
    expect(validateRequest(sid)).toMatchObject({ error: { code: 'invalid_args', field: '/sid' } });
  });

  it('holds per-type counts to whole numbers, and reads a key that is not a type name as the contract does', () => {
    const { response } = OP_FIXTURES.session_dump_write;
    const other = { ...response, entries: { ...response.entries, 'Tool Bash': 3 } };
    expect(validateResponse('session_dump_write', other).ok).toBe(true);
    const negative = { ...response, entries: { ...response.entries, 'tool:Bash': -1 } };
    expect(validateResponse('session_dump_write', negative)).toMatchObject({
      ok: false,
      error: { code: 'invalid_args', field: '/entries/tool:Bash' },
    });
  });

  it('takes dump arguments the contract takes: any agent id, empty record ids, any non-empty preset name', () => {
    const { request } = OP_FIXTURES.session_dump_write;
    for (const args of [
      { agent_id: '../not/a/lane' },
      { agent_id: '' },
      { since_uuid: '' },
      { until_uuid: '' },
      { preset: 'no such preset!' },
    ])
      expect(validateRequest({ ...request, ...args }), JSON.stringify(args)).toMatchObject({ ok: true });
    expect(validateRequest({ ...request, preset: '' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_args', field: '/preset' },
    });
  });

  it('names the bad field of an item inside a reply', () => {
    const { response } = OP_FIXTURES.transcript_items_read;
    const [first, bash, ...rest] = response.items;
    const broken = { ...response, items: [first, { ...bash, command: 42 }, ...rest] };
    expect(validateResponse('transcript_items_read', broken)).toMatchObject({
      ok: false,
      error: { code: 'invalid_args', field: '/items/1/command' },
    });
  });
});
