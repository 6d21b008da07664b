// Writes the contract's JSON Schema export next to the bundle it is built from. Run after the bundle
// (dist/index.js) exists: `node packages/protocol/scripts/export-schema.mjs`.
import { writeFile } from 'node:fs/promises';

const dist = new URL('../dist/', import.meta.url);
const { contractJsonSchema } = await import(new URL('index.js', dist).href);
const target = new URL('cairn-protocol.schema.json', dist);
await writeFile(target, `${JSON.stringify(contractJsonSchema(), null, 2)}\n`);
