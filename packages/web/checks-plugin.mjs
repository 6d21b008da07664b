// An esbuild plugin providing `virtual:cairn-checks`: the contract's schemas compiled to checking
// functions at build time. The page's Content-Security-Policy forbids generating code at run time, and
// the interpreted checker is far too slow for pages of thousands of items, so the code TypeBox would
// generate in the browser is generated here instead.
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));

// The schemas the browser checks what it receives against.
const ENTRY = `
export {
  OP_SCHEMAS,
  TranscriptItem,
  SessionUpsertedFrame,
  SessionRemovedFrame,
  WorkstationPresenceFrame,
  SessionStreamFrame,
  SERVER_EVENT_MEMBERS,
} from '@cairn/protocol';
export { TypeCompiler } from '@sinclair/typebox/compiler';
`;

async function loadContract() {
  const out = await build({
    stdin: { contents: ENTRY, resolveDir: here, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    conditions: ['source'],
    write: false,
    logLevel: 'silent',
  });
  const code = out.outputFiles[0].text;
  return await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
}

const checker = (contract, schema) =>
  `(function () {\n${contract.TypeCompiler.Code(schema, [], { language: 'javascript' })}\n})()`;

export async function checksModule() {
  const contract = await loadContract();
  const lines = ['// Generated at build time from @cairn/protocol.', 'export const responseChecks = {'];
  for (const [op, schemas] of Object.entries(contract.OP_SCHEMAS)) {
    lines.push(`  ${JSON.stringify(op)}: ${checker(contract, schemas.response)},`);
  }
  lines.push('};');
  lines.push(`export const itemCheck = ${checker(contract, contract.TranscriptItem)};`);
  lines.push(`export const sessionUpsertedCheck = ${checker(contract, contract.SessionUpsertedFrame)};`);
  lines.push(`export const sessionRemovedCheck = ${checker(contract, contract.SessionRemovedFrame)};`);
  lines.push(`export const presenceCheck = ${checker(contract, contract.WorkstationPresenceFrame)};`);
  lines.push(`export const streamFrameCheck = ${checker(contract, contract.SessionStreamFrame)};`);
  // The chat socket's frames, one checker per member, found by the frame's `type`.
  lines.push('export const chatEventChecks = {');
  for (const member of contract.SERVER_EVENT_MEMBERS) {
    lines.push(`  ${JSON.stringify(member.properties.type.const)}: ${checker(contract, member)},`);
  }
  lines.push('};');
  return lines.join('\n');
}

export const checksPlugin = {
  name: 'cairn-checks',
  setup(b) {
    b.onResolve({ filter: /^virtual:cairn-checks$/ }, () => ({
      path: 'cairn-checks',
      namespace: 'cairn-checks',
    }));
    b.onLoad({ filter: /.*/, namespace: 'cairn-checks' }, async () => ({
      contents: await checksModule(),
      loader: 'js',
      resolveDir: here,
    }));
  },
};
