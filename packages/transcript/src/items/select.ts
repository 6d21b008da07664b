// The selection language: which item types a dump or a view keeps.
//
// A selection is a list of elements read left to right over the whole range: a type name or a
// prefix of one keeps what it reaches, `-x` drops it again, `@name` stands for a preset's own
// list spliced in at that place. For each item type the last element that reaches it decides.
import { err, ok, type Result } from '../result.js';

/** What a preset has to offer a selection: its own list, which may name other presets. */
export interface PresetElements {
  readonly name: string;
  readonly opts: { readonly types: readonly string[] };
}

export type PresetLookup = ReadonlyMap<string, PresetElements>;

/** What a request asks a selection to be, in `session_dump_write`'s words. */
export interface SelectionAsk {
  readonly types?: readonly string[] | undefined;
  readonly preset?: string | undefined;
  readonly no_thinking?: boolean | undefined;
  readonly no_agent?: boolean | undefined;
}

export interface UnknownPreset {
  readonly _tag: 'UnknownPreset';
  readonly name: string;
  readonly message: string;
}

export interface PresetCycle {
  readonly _tag: 'PresetCycle';
  /** The names on the loop, the first repeated at the end. */
  readonly path: readonly string[];
  readonly message: string;
}

export interface BadSelector {
  readonly _tag: 'BadSelector';
  readonly element: string;
  readonly message: string;
}

export type SelectionError = UnknownPreset | PresetCycle | BadSelector;

/** A selection ready to apply: its elements as applied, presets expanded in place. */
export interface Selection {
  readonly elements: readonly string[];
  keeps(type: string): boolean;
}

/** The first segment of every type the classifier writes. Selecting them all is selecting everything. */
export const ITEM_ROOTS = ['message', 'thinking', 'notice', 'system', 'hook', 'tool'] as const;

/**
 * What an empty selection means: everything except the attachments, which are mostly the agent's
 * own context injections (file listings, reminders) and would swamp a dump. Spelled in selector words
 * so that a file written with it says what it holds.
 */
export const DEFAULT_SELECTION: readonly string[] = [...ITEM_ROOTS, '-system:attachment'];

/** The elements `no_thinking` and `no_agent` stand for; appended last, so they win. */
export const NO_THINKING: readonly string[] = ['-thinking'];
export const NO_AGENT: readonly string[] = ['-message:sub', '-tool:Agent'];

const TYPE_NAME = /^[a-z]+(?::[A-Za-z0-9_.-]+)*$/;
const SELECTOR = /^-?(?:@[A-Za-z0-9][A-Za-z0-9_-]*|[a-z]+(?::[A-Za-z0-9_.-]+)*)$/;

/** Whether `element` is written the way a selector must be (`tool:Bash`, `-thinking`, `@howto`). */
export const isSelector = (element: string): boolean => SELECTOR.test(element);

/**
 * Whether a (positive) type name or prefix reaches `type`: itself, or anything below it. Matching
 * stops at `:` boundaries, so `tool:Bas` does not reach `tool:Bash`.
 */
export function reaches(name: string, type: string): boolean {
  return type === name || (type.length > name.length && type.startsWith(name) && type[name.length] === ':');
}

/** Whether an expanded element list keeps `type`: the last element that reaches it decides. */
export function decide(elements: readonly string[], type: string): boolean {
  for (let i = elements.length - 1; i >= 0; i--) {
    const el = elements[i]!;
    const negated = el.startsWith('-');
    if (reaches(negated ? el.slice(1) : el, type)) return !negated;
  }
  return false;
}

const flip = (el: string): string => (el.startsWith('-') ? el.slice(1) : `-${el}`);

/**
 * The elements with every `@name` replaced by that preset's own elements, recursively. `-@name`
 * turns each of them around. An unknown name or a preset that reaches itself is an error.
 */
export function expandSelectors(
  elements: readonly string[],
  presets: PresetLookup,
  path: readonly string[] = [],
): Result<string[], SelectionError> {
  const out: string[] = [];
  for (const el of elements) {
    if (!isSelector(el)) return err(badSelector(el));
    const negated = el.startsWith('-');
    const bare = negated ? el.slice(1) : el;
    if (!bare.startsWith('@')) {
      out.push(el);
      continue;
    }
    const name = bare.slice(1);
    if (path.includes(name)) return err(presetCycle([...path.slice(path.indexOf(name)), name]));
    const preset = presets.get(name);
    if (!preset) return err(unknownPreset(name, path[path.length - 1]));
    const inner = expandSelectors(preset.opts.types, presets, [...path, name]);
    if (!inner.ok) return inner;
    out.push(...(negated ? inner.value.map(flip) : inner.value));
  }
  return ok(out);
}

/**
 * The selection a request asks for: the preset's elements, then `types`, then what `no_thinking`
 * and `no_agent` stand for. When nothing positive comes first (no selection at all, or a list that
 * starts by excluding), the default ground is laid under it, so `-thinking` means "everything but
 * thinking" rather than nothing.
 */
export function selection(ask: SelectionAsk, presets: PresetLookup): Result<Selection, SelectionError> {
  const asked: string[] = [];
  if (ask.preset !== undefined) {
    if (!presets.has(ask.preset)) return err(unknownPreset(ask.preset));
    asked.push(`@${ask.preset}`);
  }
  asked.push(...(ask.types ?? []));
  const expanded = expandSelectors(asked, presets);
  if (!expanded.ok) return expanded;
  const elements = expanded.value;
  if (elements.length === 0 || elements[0]!.startsWith('-')) elements.unshift(...DEFAULT_SELECTION);
  if (ask.no_thinking) elements.push(...NO_THINKING);
  if (ask.no_agent) elements.push(...NO_AGENT);
  return ok(selectionOf(elements));
}

/** A selection over elements already expanded. */
export function selectionOf(elements: readonly string[]): Selection {
  const frozen = [...elements];
  const memo = new Map<string, boolean>();
  return {
    elements: frozen,
    keeps(type) {
      let kept = memo.get(type);
      if (kept === undefined) {
        kept = decide(frozen, type);
        memo.set(type, kept);
      }
      return kept;
    },
  };
}

/** The items a selection keeps, in order, and how many of each type. */
export function selectItems<T extends { readonly type: string }>(
  items: readonly T[],
  sel: Selection,
): { items: T[]; entries: Record<string, number> } {
  const kept: T[] = [];
  const entries: Record<string, number> = {};
  for (const item of items) {
    if (!sel.keeps(item.type)) continue;
    kept.push(item);
    entries[item.type] = (entries[item.type] ?? 0) + 1;
  }
  return { items: kept, entries };
}

/** Whether a string is an item type name (no `-`, no `@`). */
export const isTypeName = (s: string): boolean => TYPE_NAME.test(s);

export const unknownPreset = (name: string, from?: string): UnknownPreset => ({
  _tag: 'UnknownPreset',
  name,
  message:
    from === undefined ? `unknown preset '${name}'` : `preset '${from}' names unknown preset '${name}'`,
});

export const presetCycle = (path: readonly string[]): PresetCycle => ({
  _tag: 'PresetCycle',
  path,
  message: `cycle: ${path.join(' -> ')}`,
});

const badSelector = (element: string): BadSelector => ({
  _tag: 'BadSelector',
  element,
  message: `'${element}' is not a selector (a type name or prefix like tool:Bash, -x to exclude, @preset)`,
});
