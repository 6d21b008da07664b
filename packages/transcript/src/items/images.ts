// Images the agents record inline as base64: attached to a prompt, or returned by a tool (an MCP
// screenshot). Items never carry the bytes, which would make every page of a session megabytes:
// they carry a short note (`[image: image/png, 34 KB]`), and a reader that wants the picture reads
// the item's own record and finds the images in it here. Pure, so a browser can import it too.
import { type Fields, isObject, str } from './fields.js';

export interface RecordedImage {
  /** As the agent recorded it; not trusted to be an image type. */
  readonly mediaType: string;
  /** Base64, without a `data:` prefix. */
  readonly data: string;
}

// `data:<type>;base64,<data>`, the form Codex keeps an attached image in.
const DATA_URL = /^data:([^;,]*)(?:;[^,]*)?;base64,/;

/** The image a content block holds, in any of the shapes the agents write; undefined otherwise. */
export function recordedImage(block: unknown): RecordedImage | undefined {
  if (!isObject(block)) return undefined;
  // Claude Code (the model API's shape): { type: 'image', source: { type: 'base64', media_type, data } }.
  if (block.type === 'image' && isObject(block.source)) {
    const data = str(block.source.data);
    const mediaType = str(block.source.media_type) ?? str(block.source.mediaType);
    if (data !== undefined && mediaType !== undefined) return { mediaType, data };
  }
  // An MCP result's image, and pi's: { type: 'image', data, mimeType }.
  if (block.type === 'image') {
    const data = str(block.data);
    const mediaType = str(block.mimeType) ?? str(block.media_type) ?? str(block.mediaType);
    if (data !== undefined && mediaType !== undefined) return { mediaType, data };
  }
  // Codex: { type: 'input_image', image_url: 'data:image/png;base64,…' }.
  if (block.type === 'input_image' || block.type === 'image') {
    const url = str(block.image_url) ?? str(block.url);
    if (url !== undefined) return fromDataUrl(url);
  }
  // Gemini CLI: { inlineData: { mimeType, data } }.
  if (isObject(block.inlineData)) {
    const data = str(block.inlineData.data);
    const mediaType = str(block.inlineData.mimeType);
    if (data !== undefined && mediaType !== undefined) return { mediaType, data };
  }
  return undefined;
}

/** The image a `data:` URL holds, when it is base64. */
export function fromDataUrl(url: string): RecordedImage | undefined {
  const m = DATA_URL.exec(url);
  if (!m) return undefined;
  return { mediaType: m[1] || 'application/octet-stream', data: url.slice(m[0].length) };
}

/** How many bytes base64 text decodes to. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** A size as a person reads it: `812 B`, `34 KB`, `2.4 MB`. */
export function byteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** What stands for an image wherever its bytes are not shown: `[image: image/png, 34 KB]`. A media
 * type is only ever a short token, so a hostile one cannot stretch the note. */
export function imageNote(image: RecordedImage): string {
  const type = /^[\w.+-]{1,40}\/[\w.+-]{1,80}$/.test(image.mediaType) ? image.mediaType : 'unknown type';
  return `[image: ${type}, ${byteSize(base64Bytes(image.data))}]`;
}

/** What a prompt's image is noted as when the agent recorded only that it was there. */
export const BARE_IMAGE_NOTE = '[image]';

/** The images of a parsed record, in the order they appear in it, at most `limit` of them. */
export function imagesIn(record: unknown, limit = 64): RecordedImage[] {
  const found: RecordedImage[] = [];
  const visit = (v: unknown, depth: number): void => {
    if (found.length >= limit || depth > 12) return;
    if (typeof v === 'string') {
      // Codex lists a user message's images as bare data URLs (`images: ["data:image/png;base64,…"]`).
      const image = v.startsWith('data:') ? fromDataUrl(v) : undefined;
      if (image) found.push(image);
      return;
    }
    if (Array.isArray(v)) {
      for (const each of v) visit(each, depth + 1);
      return;
    }
    if (!isObject(v)) return;
    const image = recordedImage(v);
    if (image) {
      found.push(image);
      return;
    }
    for (const each of Object.values(v)) visit(each, depth + 1);
  };
  visit(record, 0);
  return found;
}

/** An image block as an item keeps it: what it was, without the bytes. */
export interface ImageStub extends Fields {
  readonly type: 'image';
  readonly media_type: string;
  readonly bytes: number;
  /** The note, so that anything reading the block's text shows it. */
  readonly text: string;
}

const stubOf = (image: RecordedImage): ImageStub => ({
  type: 'image',
  media_type: image.mediaType,
  bytes: base64Bytes(image.data),
  text: imageNote(image),
});

/**
 * A tool's output with every image block replaced by a stub: an array of content blocks, or an
 * object holding one under `content` (an MCP result). Anything else is returned as it is, and so is
 * an output that holds no image, without a copy.
 */
export function withoutImageBytes(output: unknown): unknown {
  if (Array.isArray(output)) {
    if (!output.some((b) => recordedImage(b) !== undefined)) return output;
    return output.map((b) => {
      const image = recordedImage(b);
      return image ? stubOf(image) : b;
    });
  }
  if (isObject(output) && Array.isArray(output.content)) {
    const content = withoutImageBytes(output.content);
    return content === output.content ? output : { ...output, content };
  }
  return output;
}

/** Whether a block is an image stub an item carries. */
export const isImageStub = (block: unknown): block is ImageStub =>
  isObject(block) &&
  block.type === 'image' &&
  typeof block.media_type === 'string' &&
  typeof block.bytes === 'number' &&
  block.data === undefined &&
  block.source === undefined;
