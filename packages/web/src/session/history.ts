// Reading the items of a long history's chunk that travelled gzip-compressed and base64-encoded.

/** The JSON a `gzip-base64` payload holds. */
export async function unzipJson(payload: string): Promise<unknown> {
  return JSON.parse(await gunzipBase64(payload));
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
