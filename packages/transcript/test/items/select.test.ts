// The selection language, case by case: which types a selection keeps, what it expands to, and
// which selections and preset sets are refused.
import { describe, expect, it } from 'vitest';
import {
  BUILTIN_PRESETS,
  checkPresets,
  DEFAULT_SELECTION,
  type PresetLookup,
  presetLookup,
  presetsOfConfig,
  type SelectionAsk,
  selection,
} from '../../src/index.js';

const P = (name: string, types: string[]) => ({ name, opts: { types } });

const presets: PresetLookup = presetLookup([
  P('file', ['tool:Read', 'tool:Write', 'tool:Edit']),
  P('howto', ['thinking', 'message:user', '@file', 'tool:Bash']),
  P('deep', ['@howto', 'message:sub']),
  P('nothink', ['-thinking']),
  P('a', ['@b']),
  P('b', ['@a']),
  P('c', ['thinking', '@d']),
  P('d', ['tool', '@e']),
  P('e', ['hook', '@c']),
  P('ghost', ['@nowhere']),
]);

const TYPES = [
  'message:user:in',
  'message:user:out',
  'message:sub:out',
  'message:sub:in',
  'thinking',
  'tool:Bash',
  'tool:Bas',
  'tool:Read',
  'tool:Write',
  'tool:Agent',
  'tool:exec_command',
  'system:attachment:meta',
  'system:compact',
  'hook:Stop',
  'notice:slash',
];

interface Case {
  name: string;
  ask: SelectionAsk;
  keeps?: string[];
  elements?: string[];
  error?: string;
}

const CASES: Case[] = [
  {
    name: 'no selection keeps everything but attachments',
    ask: {},
    keeps: TYPES.filter((t) => !t.startsWith('system:attachment')),
    elements: [...DEFAULT_SELECTION],
  },
  {
    name: 'a prefix reaches everything below it',
    ask: { types: ['tool'] },
    keeps: ['tool:Bash', 'tool:Bas', 'tool:Read', 'tool:Write', 'tool:Agent', 'tool:exec_command'],
  },
  { name: 'a prefix stops at a segment boundary', ask: { types: ['tool:Bas'] }, keeps: ['tool:Bas'] },
  { name: 'thin is not thinking', ask: { types: ['thin'] }, keeps: [] },
  {
    name: 'message:user is both directions',
    ask: { types: ['message:user'] },
    keeps: ['message:user:in', 'message:user:out'],
  },
  {
    name: 'an exclusion after a prefix wins',
    ask: { types: ['tool', '-tool:Read'] },
    keeps: ['tool:Bash', 'tool:Bas', 'tool:Write', 'tool:Agent', 'tool:exec_command'],
  },
  {
    name: 'order matters: a prefix after an exclusion brings it back',
    ask: { types: ['tool:Bash', '-tool:Read', 'tool'] },
    keeps: ['tool:Bash', 'tool:Bas', 'tool:Read', 'tool:Write', 'tool:Agent', 'tool:exec_command'],
  },
  {
    name: 'a list that starts by excluding starts from the default',
    ask: { types: ['-thinking'] },
    keeps: TYPES.filter((t) => t !== 'thinking' && !t.startsWith('system:attachment')),
    elements: [...DEFAULT_SELECTION, '-thinking'],
  },
  {
    name: 'a preset expands in place',
    ask: { preset: 'howto' },
    keeps: ['message:user:in', 'message:user:out', 'thinking', 'tool:Bash', 'tool:Read', 'tool:Write'],
    elements: ['thinking', 'message:user', 'tool:Read', 'tool:Write', 'tool:Edit', 'tool:Bash'],
  },
  {
    name: 'negation after a preset removes what the preset brought',
    ask: { types: ['@howto', '-tool:Read'] },
    keeps: ['message:user:in', 'message:user:out', 'thinking', 'tool:Bash', 'tool:Write'],
    elements: ['thinking', 'message:user', 'tool:Read', 'tool:Write', 'tool:Edit', 'tool:Bash', '-tool:Read'],
  },
  {
    name: 'types apply over the named preset',
    ask: { preset: 'howto', types: ['-thinking', 'hook'] },
    keeps: ['message:user:in', 'message:user:out', 'tool:Bash', 'tool:Read', 'tool:Write', 'hook:Stop'],
  },
  {
    name: 'nested presets expand recursively',
    ask: { types: ['@deep'] },
    keeps: [
      'message:user:in',
      'message:user:out',
      'message:sub:out',
      'message:sub:in',
      'thinking',
      'tool:Bash',
      'tool:Read',
      'tool:Write',
    ],
    elements: [
      'thinking',
      'message:user',
      'tool:Read',
      'tool:Write',
      'tool:Edit',
      'tool:Bash',
      'message:sub',
    ],
  },
  {
    name: 'a negated preset turns each of its elements around',
    ask: { types: ['tool', '-@file'] },
    keeps: ['tool:Bash', 'tool:Bas', 'tool:Agent', 'tool:exec_command'],
  },
  {
    name: 'a preset made only of exclusions starts from the default',
    ask: { preset: 'nothink' },
    keeps: TYPES.filter((t) => t !== 'thinking' && !t.startsWith('system:attachment')),
  },
  {
    name: 'no_thinking is appending -thinking, and wins over the preset',
    ask: { preset: 'howto', no_thinking: true },
    keeps: ['message:user:in', 'message:user:out', 'tool:Bash', 'tool:Read', 'tool:Write'],
    elements: ['thinking', 'message:user', 'tool:Read', 'tool:Write', 'tool:Edit', 'tool:Bash', '-thinking'],
  },
  {
    name: 'no_agent is appending -message:sub and -tool:Agent',
    ask: { types: ['message', 'tool'], no_agent: true },
    keeps: [
      'message:user:in',
      'message:user:out',
      'tool:Bash',
      'tool:Bas',
      'tool:Read',
      'tool:Write',
      'tool:exec_command',
    ],
    elements: ['message', 'tool', '-message:sub', '-tool:Agent'],
  },
  {
    name: 'no_thinking and no_agent on no selection',
    ask: { no_thinking: true, no_agent: true },
    elements: [...DEFAULT_SELECTION, '-thinking', '-message:sub', '-tool:Agent'],
  },
  {
    name: 'an unknown preset named by the request is refused',
    ask: { preset: 'nope' },
    error: "unknown preset 'nope'",
  },
  {
    name: 'an unknown preset in types is refused',
    ask: { types: ['@nope'] },
    error: "unknown preset 'nope'",
  },
  {
    name: 'a preset naming an unknown preset is refused',
    ask: { preset: 'ghost' },
    error: "preset 'ghost' names unknown preset 'nowhere'",
  },
  { name: 'a two-preset cycle is refused', ask: { preset: 'a' }, error: 'cycle: a -> b -> a' },
  {
    name: 'a longer cycle is refused with its path',
    ask: { types: ['@c'] },
    error: 'cycle: c -> d -> e -> c',
  },
  {
    name: 'a malformed element is refused',
    ask: { types: ['Tool:Bash'] },
    error: "'Tool:Bash' is not a selector",
  },
];

describe('selections', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const sel = selection(c.ask, presets);
      if (c.error !== undefined) {
        expect(sel.ok).toBe(false);
        if (!sel.ok) expect(sel.error.message).toContain(c.error);
        return;
      }
      expect(sel.ok).toBe(true);
      if (!sel.ok) return;
      if (c.keeps)
        expect(TYPES.filter((t) => sel.value.keeps(t))).toEqual(TYPES.filter((t) => c.keeps!.includes(t)));
      if (c.elements) expect(sel.value.elements).toEqual(c.elements);
      for (const el of sel.value.elements) expect(el).not.toMatch(/@/);
    });
  }
});

describe('presets', () => {
  it('ships file, howto, conversation and handover, each described, all expanding', () => {
    const names = BUILTIN_PRESETS.map((p) => p.name);
    for (const n of ['file', 'howto', 'conversation', 'handover']) expect(names).toContain(n);
    for (const p of BUILTIN_PRESETS) expect(p.description).toBeTruthy();
    expect(checkPresets(BUILTIN_PRESETS).ok).toBe(true);
  });

  it('takes the user presets from the config, overriding a built-in by name', () => {
    const r = presetsOfConfig({
      dump: {
        presets: [
          P('howto', ['thinking']),
          { name: 'mine', description: 'x', opts: { types: ['@howto', 'hook'] } },
        ],
      },
      other: { left: 'alone' },
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.find((p) => p.name === 'howto')!.opts.types).toEqual(['thinking']);
    expect(r.value.filter((p) => p.name === 'howto')).toHaveLength(1);
  });

  it('lists the presets in configured order: the config as written, then the built-ins it did not replace', () => {
    const r = presetsOfConfig({
      dump: { presets: [P('zeta', ['thinking']), P('file', ['tool:Read']), P('alpha', ['@shell'])] },
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const rest = BUILTIN_PRESETS.map((p) => p.name).filter((n) => n !== 'file');
    expect(r.value.map((p) => p.name)).toEqual(['zeta', 'file', 'alpha', ...rest]);
    expect(r.value[1]!.opts.types).toEqual(['tool:Read']);
  });

  it('uses the built-ins when there is no config', () => {
    const r = presetsOfConfig(undefined);
    expect(r.ok && r.value.map((p) => p.name)).toEqual(BUILTIN_PRESETS.map((p) => p.name));
  });

  it.each([
    [{ dump: { presets: [P('a', ['@b']), P('b', ['@a'])] } }, 'cycle: a -> b -> a'],
    [{ dump: { presets: [P('a', ['@zzz'])] } }, "preset 'a' names unknown preset 'zzz'"],
    [{ dump: { presets: [P('a', ['Tool:Bash'])] } }, 'dump.presets[0]'],
    [{ dump: { presets: [P('a', ['thinking']), P('a', ['tool'])] } }, 'repeats a'],
    [{ dump: { presets: [{ name: 'a' }] } }, 'dump.presets[0]'],
    [{ dump: { presets: {} } }, 'not an array'],
    [[], 'not a JSON object'],
  ])('refuses a bad config %#', (config, message) => {
    const r = presetsOfConfig(config);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toContain(message);
  });
});
