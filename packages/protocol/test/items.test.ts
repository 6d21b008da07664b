import { describe, expect, it } from 'vitest';
import {
  ITEM_FIXTURES,
  matches,
  OPEN_ITEM_FAMILIES,
  TRANSCRIPT_ITEM_MEMBERS,
  TRANSCRIPT_ITEM_TYPES,
  TranscriptItem,
  TranscriptItemSelector,
  TranscriptItemType,
  TYPED_TOOLS,
  validate,
} from '../src/index.js';
import { mutations } from './mutate.js';

const fixtures: Record<string, Record<string, unknown>> = ITEM_FIXTURES;

describe('the item union', () => {
  it('has one fixture per member and no fixture without a member', () => {
    expect(Object.keys(fixtures).sort()).toEqual(TRANSCRIPT_ITEM_MEMBERS.map((m) => m.name).sort());
  });

  it('spells out every closed type name in exactly one member', () => {
    for (const type of TRANSCRIPT_ITEM_TYPES) {
      const owners = TRANSCRIPT_ITEM_MEMBERS.filter((m) => m.schema.properties.type?.const === type);
      expect(
        owners.map((m) => m.name),
        type,
      ).toHaveLength(1);
    }
  });

  it('has a typed call and a typed result for every typed tool', () => {
    for (const tool of TYPED_TOOLS) {
      const roles = TRANSCRIPT_ITEM_MEMBERS.filter(
        (m) => m.schema.properties.type?.const === `tool:${tool}`,
      ).map((m) => m.schema.properties.role?.const);
      expect(roles.sort(), tool).toEqual(['result', 'use']);
    }
  });

  it('keeps the open families open: a name coined by an agent, tool or hook is accepted', () => {
    const use = {
      uuid: 'u1',
      at: 1,
      role: 'use',
      tool_use_id: 'call_1',
      input: { patch: '*** Begin Patch' },
    };
    expect(matches(TranscriptItem, { ...use, type: 'tool:apply_patch' })).toBe(true);
    expect(matches(TranscriptItem, { ...use, type: 'tool:mcp__github__create_issue' })).toBe(true);
    expect(
      matches(TranscriptItem, {
        uuid: 'u2',
        at: 1,
        type: 'system:attachment:deferred_tools_delta',
        attachment: {},
      }),
    ).toBe(true);
    const hook = { uuid: 'u3', at: 1, hook_name: 'SessionStart:startup', outcome: 'output' };
    expect(matches(TranscriptItem, { ...hook, type: 'hook:SessionStart' })).toBe(true);
    // The event alone: a matcher in the type would read as one more level.
    expect(matches(TranscriptItem, { ...hook, type: 'hook:SessionStart:startup' })).toBe(false);
    for (const family of OPEN_ITEM_FAMILIES)
      expect(matches(TranscriptItemType, `${family}:Anything_1.2-x`)).toBe(true);
  });

  it('reads a typed tool call without its fields as the generic call it still is', () => {
    const bare = {
      uuid: 'u4',
      at: 1,
      type: 'tool:Bash',
      role: 'use',
      tool_use_id: 't',
      input: { command: 'ls' },
    };
    expect(matches(TranscriptItem, bare)).toBe(true);
  });
});

describe.each(TRANSCRIPT_ITEM_MEMBERS.map((m) => [m.name, m.schema] as const))('%s', (name, schema) => {
  const fixture = fixtures[name] ?? {};

  it('has a fixture that validates against the member and the union', () => {
    expect(validate(schema, fixture)).toEqual({ ok: true, value: fixture });
    expect(validate(TranscriptItem, fixture)).toEqual({ ok: true, value: fixture });
    expect(matches(TranscriptItemType, fixture.type)).toBe(true);
  });

  it.each(mutations(schema, fixture))('$label is refused by the union, naming $field', ({ value, field }) => {
    const checked = validate(TranscriptItem, value);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.error.field.startsWith(field)).toBe(true);
  });
});

describe('type names and selectors', () => {
  it.each([
    ['message:user:in', true],
    ['system:api-error', true],
    ['tool:exec_command', true],
    ['tool', true],
    ['Tool:Bash', false],
    ['tool:', false],
    ['tool::Bash', false],
    ['tool:Bash Now', false],
    ['', false],
  ])('type %j is %s', (type, ok) => {
    expect(matches(TranscriptItemType, type)).toBe(ok);
  });

  it.each([
    ['tool', true],
    ['tool:Bas', true],
    ['-tool:Read', true],
    ['@howto', true],
    ['-@file', true],
    ['message:user', true],
    ['Tool:Bash', false],
    ['@', false],
    ['@-file', false],
    ['--thinking', false],
    ['tool:Bash,tool:Read', false],
    ['*', false],
  ])('selector %j is %s', (selector, ok) => {
    expect(matches(TranscriptItemSelector, selector)).toBe(ok);
  });
});
