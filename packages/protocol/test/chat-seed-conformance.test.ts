// The chat wire against its published contract, read in place: every `ServerEvent` and
// `ClientMessage` member the seed declares exists in cairn's contract under the same `type`, with the
// same required fields. The seed's declarations are parsed with the TypeScript compiler, not copied.
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { CLIENT_MESSAGE_MEMBERS, SERVER_EVENT_MEMBERS } from '../src/index.js';
import { seedFile } from './support/seed-files.js';

const SEED = seedFile('004_8cc4f182ab821995.txt');

interface DeclaredMember {
  type: string;
  required: string[];
}

/** A field typed `unknown` (or `any`, or a union with `undefined`) may hold undefined, which JSON
 * writes as no field at all: on the wire it is optional, though TypeScript spells it without `?`. */
function admitsUndefined(type: ts.TypeNode | undefined): boolean {
  if (!type) return true;
  if (type.kind === ts.SyntaxKind.UnknownKeyword || type.kind === ts.SyntaxKind.AnyKeyword) return true;
  if (type.kind === ts.SyntaxKind.UndefinedKeyword) return true;
  return ts.isUnionTypeNode(type) && type.types.some(admitsUndefined);
}

/** The members of the union type alias `name`: each object literal's `type` and its required fields. */
function unionMembers(source: ts.SourceFile, name: string): DeclaredMember[] {
  const alias = source.statements.find(
    (s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === name,
  );
  if (!alias) throw new Error(`the seed declares no type ${name}`);
  const members = ts.isUnionTypeNode(alias.type) ? alias.type.types : [alias.type];
  return members.map((member) => {
    if (!ts.isTypeLiteralNode(member)) throw new Error(`a member of ${name} is not an object type`);
    let type: string | undefined;
    const required: string[] = [];
    for (const field of member.members) {
      if (!ts.isPropertySignature(field) || !field.name) continue;
      const key = ts.isIdentifier(field.name) || ts.isStringLiteral(field.name) ? field.name.text : undefined;
      if (key === undefined) continue;
      if (!field.questionToken && !admitsUndefined(field.type)) required.push(key);
      const literal = field.type && ts.isLiteralTypeNode(field.type) ? field.type.literal : undefined;
      if (key === 'type' && literal && ts.isStringLiteral(literal)) type = literal.text;
    }
    if (type === undefined) throw new Error(`a member of ${name} has no string literal type`);
    return { type, required: required.sort() };
  });
}

type Member = { properties: { type: { const: string } }; required?: string[] };

function cairnMembers(members: readonly unknown[]): Map<string, string[]> {
  return new Map(
    (members as readonly Member[]).map((m) => [m.properties.type.const, [...(m.required ?? [])].sort()]),
  );
}

describe.skipIf(SEED === undefined)('the chat wire against seed 004', () => {
  const source = ts.createSourceFile(
    'wire.d.ts',
    SEED ? readFileSync(SEED, 'utf8') : '',
    ts.ScriptTarget.Latest,
    true,
    ts.ScriptKind.TS,
  );

  it('parses the seed’s unions', () => {
    expect(unionMembers(source, 'ServerEvent').length).toBeGreaterThan(40);
    expect(unionMembers(source, 'ClientMessage').map((m) => m.type)).toEqual(['user_message']);
  });

  for (const [union, members] of [
    ['ServerEvent', SERVER_EVENT_MEMBERS],
    ['ClientMessage', CLIENT_MESSAGE_MEMBERS],
  ] as const) {
    it(`has every ${union} member the seed declares, with the same required fields`, () => {
      const cairn = cairnMembers(members);
      const problems: string[] = [];
      for (const declared of unionMembers(source, union)) {
        const ours = cairn.get(declared.type);
        if (!ours) {
          problems.push(`${declared.type}: missing`);
          continue;
        }
        const missing = declared.required.filter((f) => !ours.includes(f));
        const extra = ours.filter((f) => !declared.required.includes(f));
        if (missing.length > 0) problems.push(`${declared.type}: does not require ${missing.join(', ')}`);
        if (extra.length > 0)
          problems.push(`${declared.type}: requires ${extra.join(', ')} besides the seed`);
      }
      expect(problems).toEqual([]);
    });
  }
});
