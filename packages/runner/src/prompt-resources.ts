// The project files a prompt carries, as ACP content blocks: the file's text embedded where the
// agent takes embedded context, a link to it otherwise. A file outside the session's folder, or one
// that is gone, is left out with a line in the log rather than failing the turn.
import { open, realpath } from 'node:fs/promises';
import { isAbsolute, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as acp from '@agentclientprotocol/sdk';
import type { PromptResource } from '@cairn/protocol';

/** Past this size a file goes as a link even to an agent that takes embedded context. */
export const MAX_EMBEDDED_FILE_BYTES = 256 * 1024;

/** Whether `value` is a list of prompt resources as the server sends them. */
export function isPromptResourceList(value: unknown): value is PromptResource[] {
  return (
    Array.isArray(value) &&
    value.every(
      (r) =>
        typeof r === 'object' &&
        r !== null &&
        typeof (r as PromptResource).uri === 'string' &&
        typeof (r as PromptResource).name === 'string',
    )
  );
}

const inside = (root: string, path: string): boolean => {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/** The file's text when it is small and reads as UTF-8 text; undefined otherwise. */
async function smallText(path: string): Promise<string | undefined> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    if (size > MAX_EMBEDDED_FILE_BYTES) return undefined;
    const bytes = await handle.readFile();
    if (bytes.includes(0)) return undefined;
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return text;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

export async function resourceBlocks(
  resources: readonly PromptResource[],
  cwd: string,
  embeddedContext: boolean,
  log: (line: string) => void,
): Promise<acp.ContentBlock[]> {
  const blocks: acp.ContentBlock[] = [];
  let root: string;
  try {
    root = await realpath(cwd);
  } catch {
    log(`workstation: the session folder ${cwd} is gone: ${resources.length} attached file(s) left out`);
    return blocks;
  }
  for (const resource of resources) {
    let path: string;
    try {
      path = await realpath(fileURLToPath(resource.uri));
    } catch {
      log(`workstation: attached file ${resource.name} is not there: left out`);
      continue;
    }
    // The server checked it too; a link or a rename since must not lead outside the folder.
    if (!inside(root, path)) {
      log(`workstation: attached file ${resource.name} is outside the session folder: left out`);
      continue;
    }
    const text = embeddedContext ? await smallText(path) : undefined;
    blocks.push(
      text !== undefined
        ? { type: 'resource', resource: { uri: resource.uri, text, mimeType: 'text/plain' } }
        : { type: 'resource_link', uri: resource.uri, name: resource.name },
    );
  }
  return blocks;
}
