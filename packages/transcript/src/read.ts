// Reading session files for adapters: whole files for loading, heads for listing.
// `.zst` files are decompressed here so that adapters and pointers see the plain stream.
import { Decompress, decompress } from 'fzstd';
import type { AdapterContext, SourceFile } from './adapter.js';
import type { SessionPlatform } from './platform.js';

/** Listing reads at most this much of each file, whatever its size. */
export const HEAD_BYTES = 128 * 1024;

export const isZstd = (path: string): boolean => path.endsWith('.zst');

export async function readSourceFile(
  platform: SessionPlatform,
  path: string,
  signal?: AbortSignal,
): Promise<SourceFile> {
  const raw = await platform.fs.readFile(path, signal);
  const file: SourceFile = isZstd(path)
    ? { path, data: decompress(raw), codec: 'zstd' }
    : { path, data: raw };
  if (platform.isWellFormedUtf8?.(file.data)) file.wellFormedUtf8 = true;
  return file;
}

/** The first HEAD_BYTES of a file's (decompressed) stream. */
export async function readHead(platform: SessionPlatform, path: string): Promise<Uint8Array> {
  if (!isZstd(path)) return platform.fs.readRange(path, 0, HEAD_BYTES);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const stream = new Decompress((chunk) => {
    chunks.push(chunk);
    size += chunk.length;
  });
  // Feed compressed bytes until enough plain bytes came out or the file ends.
  for (let offset = 0; size < HEAD_BYTES; offset += HEAD_BYTES) {
    const part = await platform.fs.readRange(path, offset, HEAD_BYTES);
    if (part.length === 0) break;
    stream.push(part, part.length < HEAD_BYTES);
    if (part.length < HEAD_BYTES) break;
  }
  return concat(chunks, size).subarray(0, HEAD_BYTES);
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

export const adapterContext = (platform: SessionPlatform, signal?: AbortSignal): AdapterContext =>
  signal
    ? { platform, signal, readHead: (path) => readHead(platform, path) }
    : { platform, readHead: (path) => readHead(platform, path) };
