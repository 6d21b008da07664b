// Images in the timeline: which items had some (a prompt's notes, a tool result's image stubs), where
// their bytes are in the record an item was read from, and the one rule for turning recorded bytes
// into something a page may draw. Pure: no DOM, no network.
import { imagesIn, isImageStub, type RecordedImage } from '@cairn/transcript/items';
import { type Item, isObject, obj } from './item.js';

type Loose = Record<string, unknown>;

/** The only image types drawn. SVG is left out on purpose: it is a document that can carry script. */
export const SHOWN_IMAGE_TYPES: ReadonlySet<string> = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
]);

/** Beyond this many bytes an image is not drawn, only noted: a page holds several at once. */
export const MAX_SHOWN_IMAGE_BYTES = 10 * 1024 * 1024;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export type ImageSource =
  | { readonly ok: true; readonly url: string }
  | { readonly ok: false; readonly reason: string };

/** A `data:` URL for a recorded image, when it is a type that is safe to draw, well formed and not
 * too big; else why it is not drawn. */
export function imageDataUrl(image: RecordedImage): ImageSource {
  const type = image.mediaType.trim().toLowerCase();
  if (!SHOWN_IMAGE_TYPES.has(type)) return { ok: false, reason: `${type || 'no type'} is not shown` };
  const data = image.data.replace(/\s+/g, '');
  if (data === '' || data.length % 4 === 1 || !BASE64.test(data))
    return { ok: false, reason: 'the recorded bytes are not base64' };
  if ((data.length * 3) / 4 > MAX_SHOWN_IMAGE_BYTES) return { ok: false, reason: 'too large to show' };
  return { ok: true, url: `data:${type};base64,${data}` };
}

/** The notes of the images a prompt carried (`[image: image/png, 34 KB]`), in order. */
export function promptImageNotes(item: Item): string[] {
  const images = (item as Loose).images;
  return Array.isArray(images) ? images.filter((n): n is string => typeof n === 'string') : [];
}

/** A generic result's output in parts: its texts, and a note per image it held. */
export function resultParts(result: Item): { texts: string[]; images: string[] } {
  const generic = obj(result, 'result');
  let output = generic?.output ?? generic?.content;
  if (isObject(output) && Array.isArray(output.content)) output = output.content;
  const texts: string[] = [];
  const images: string[] = [];
  if (typeof output === 'string') texts.push(output);
  else if (Array.isArray(output))
    for (const block of output) {
      if (isImageStub(block)) images.push(block.text);
      else if (isObject(block) && typeof block.text === 'string') texts.push(block.text);
      else if (typeof block === 'string') texts.push(block);
      else if (block !== undefined) texts.push(JSON.stringify(block, null, 2));
    }
  else if (output !== undefined && output !== null) texts.push(JSON.stringify(output, null, 2));
  return { texts, images };
}

/** Images the same record repeats (Claude Code copies an MCP result into `toolUseResult`) once. */
function distinct(images: RecordedImage[]): RecordedImage[] {
  const seen = new Set<string>();
  return images.filter((i) => {
    if (seen.has(i.data)) return false;
    seen.add(i.data);
    return true;
  });
}

/** The images of a prompt, from the record it was read from. */
export function promptImagesIn(record: unknown): RecordedImage[] {
  if (!isObject(record)) return [];
  // Claude Code and pi keep the prompt under `message`, Codex under `payload`.
  const body = record.message ?? record.payload ?? record;
  return distinct(imagesIn(body));
}

/** The images a call's result holds, from the record it was read from. */
export function resultImagesIn(record: unknown, toolUseId: string | undefined): RecordedImage[] {
  if (!isObject(record)) return [];
  const message = isObject(record.message) ? record.message : undefined;
  if (message && Array.isArray(message.content)) {
    for (const block of message.content) {
      if (!isObject(block) || block.type !== 'tool_result') continue;
      if (toolUseId !== undefined && block.tool_use_id !== toolUseId) continue;
      return distinct(imagesIn(block.content));
    }
    // pi keeps a tool's answer as a message of its own.
    return distinct(imagesIn(message.content));
  }
  const payload = isObject(record.payload) ? record.payload : undefined;
  if (payload) {
    const output = payload.output;
    if (typeof output === 'string' && output.trimStart().startsWith('[')) {
      try {
        return distinct(imagesIn(JSON.parse(output)));
      } catch {
        return [];
      }
    }
    return distinct(imagesIn(output ?? payload));
  }
  return distinct(imagesIn(record));
}
