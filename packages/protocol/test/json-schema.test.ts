import { Kind, type TSchema } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import * as contract from '../src/index.js';
import {
  contractJsonSchema,
  OP_ATTRIBUTES,
  OP_NAMES,
  OP_SCHEMAS,
  TRANSCRIPT_ITEM_MEMBERS,
} from '../src/index.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const bundle = JSON.parse(JSON.stringify(contractJsonSchema())) as { [key: string]: Json };
const defs = bundle.$defs as { [id: string]: { [key: string]: Json } };

function* walk(node: Json, path: string): Generator<[string, { [key: string]: Json }]> {
  if (Array.isArray(node)) {
    for (const [i, each] of node.entries()) yield* walk(each, `${path}/${i}`);
  } else if (node !== null && typeof node === 'object') {
    yield [path, node];
    for (const [key, value] of Object.entries(node)) yield* walk(value, `${path}/${key}`);
  }
}

function pointer(root: Json, ref: string): Json | undefined {
  let node: Json | undefined = root;
  for (const part of ref.slice(2).split('/')) {
    const key = part.replaceAll('~1', '/').replaceAll('~0', '~');
    node = node !== null && typeof node === 'object' && !Array.isArray(node) ? node[key] : undefined;
  }
  return node;
}

/** A def with its references put back in place, which must be the TypeBox schema's own JSON. */
function inline(node: Json): Json {
  if (Array.isArray(node)) return node.map(inline);
  if (node === null || typeof node !== 'object') return node;
  if (typeof node.$ref === 'string') return inline(defs[node.$ref] ?? null);
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(v)]));
}

const namedExports: [string, TSchema][] = [];
for (const [name, value] of Object.entries(contract) as [string, unknown][]) {
  if (
    typeof value === 'object' &&
    value !== null &&
    Kind in value &&
    typeof (value as TSchema).$id === 'string'
  ) {
    namedExports.push([name, value as TSchema]);
  }
}

describe('the JSON Schema export', () => {
  it('is JSON, the same on every call, and declares its dialect', () => {
    expect(JSON.stringify(contractJsonSchema())).toBe(JSON.stringify(bundle));
    expect(bundle.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(bundle.protocol_version).toBe(contract.PROTOCOL_VERSION);
  });

  it('holds every exported schema under its $id, each def carrying that $id', () => {
    expect(namedExports.length).toBeGreaterThan(60);
    for (const [name, schema] of namedExports) expect(defs[schema.$id as string], name).toBeDefined();
    for (const [id, def] of Object.entries(defs)) expect(def.$id).toBe(id);
    for (const member of TRANSCRIPT_ITEM_MEMBERS) expect(defs[member.name]).toBeDefined();
  });

  it('holds every op with its attributes and its four schemas', () => {
    const ops = bundle.ops as { [op: string]: { [key: string]: Json } };
    expect(Object.keys(ops).sort()).toEqual([...OP_NAMES].sort());
    for (const op of OP_NAMES) {
      const { args, result, request, response, ...attributes } = ops[op] ?? {};
      expect(attributes).toEqual(JSON.parse(JSON.stringify(OP_ATTRIBUTES[op])));
      expect(request).toEqual({ $ref: OP_SCHEMAS[op].request.$id });
      expect(response).toEqual({ $ref: OP_SCHEMAS[op].response.$id });
      expect(args).toEqual({ $ref: OP_SCHEMAS[op].args.$id });
      expect(result).toEqual({ $ref: OP_SCHEMAS[op].result.$id });
    }
  });

  it('resolves every $ref within the document, and nests no named schema inside another', () => {
    let refs = 0;
    for (const [path, node] of walk(bundle, '')) {
      if (typeof node.$ref === 'string') {
        refs += 1;
        const target = node.$ref.startsWith('#/') ? pointer(bundle, node.$ref) : defs[node.$ref];
        expect(target, `${path}: ${node.$ref}`).toBeDefined();
      }
      if (typeof node.$id === 'string') expect(path).toBe(`/$defs/${node.$id}`);
    }
    expect(refs).toBeGreaterThan(100);
  });

  it('says what the TypeBox schemas say, references put back in place', () => {
    for (const [name, schema] of namedExports) {
      expect(inline(defs[schema.$id as string] ?? null), name).toEqual(JSON.parse(JSON.stringify(schema)));
    }
  });
});
