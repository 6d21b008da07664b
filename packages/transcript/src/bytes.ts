// Byte searches for passes that decide from a line's bytes what to parse.

const encoder = new TextEncoder();

export const bytesOf = (text: string): Uint8Array => encoder.encode(text);

type NativeIndexOf = (needle: Uint8Array, from: number) => number;

/**
 * The index of `needle` in `hay` from `from`, or -1. Node's Buffer searches natively for a byte
 * sequence; a plain Uint8Array (in a browser) is searched here.
 */
export function indexOfBytes(hay: Uint8Array, needle: Uint8Array, from = 0): number {
  if (hay.indexOf !== Uint8Array.prototype.indexOf)
    return (hay.indexOf as unknown as NativeIndexOf)(needle, from);
  const first = needle[0];
  if (first === undefined) return from;
  for (
    let i = hay.indexOf(first, from);
    i !== -1 && i + needle.length <= hay.length;
    i = hay.indexOf(first, i + 1)
  ) {
    let k = 1;
    while (k < needle.length && hay[i + k] === needle[k]) k++;
    if (k === needle.length) return i;
  }
  return -1;
}
