// Reading the items a session stream frame carries: inline, or gzip-compressed and base64-encoded
// for long histories.
import type { Item } from '../timeline/item.js';

/** The items a frame carries, under whichever name it uses for them. */
export function inlineItems(frame: Record<string, unknown>): Item[] {
  for (const name of ['items', 'history', 'messages']) {
    const v = frame[name];
    if (Array.isArray(v)) return v as Item[];
  }
  const one = frame.item;
  return typeof one === 'object' && one !== null && !Array.isArray(one) ? [one as Item] : [];
}

/** A `history_chunk`'s items, decompressing its payload when it is `gzip-base64`. */
export async function chunkItems(frame: Record<string, unknown>): Promise<Item[]> {
  if (frame.encoding !== 'gzip-base64' || typeof frame.payload !== 'string') return inlineItems(frame);
  const text = await gunzipBase64(frame.payload);
  const parsed: unknown = JSON.parse(text);
  if (Array.isArray(parsed)) return parsed as Item[];
  return typeof parsed === 'object' && parsed !== null ? inlineItems(parsed as Record<string, unknown>) : [];
}

type Base64Decoder = { fromBase64?: (s: string) => Uint8Array };

function base64Bytes(payload: string): Uint8Array {
  const native = (Uint8Array as unknown as Base64Decoder).fromBase64;
  if (native) return native(payload);
  const binary = atob(payload);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export async function gunzipBase64(payload: string): Promise<string> {
  const bytes = base64Bytes(payload);
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>])
    .stream()
    .pipeThrough(new DecompressionStream('gzip'));
  return await new Response(stream).text();
}
