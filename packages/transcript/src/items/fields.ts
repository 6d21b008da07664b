// Reading loosely typed payloads into item fields.

export type Fields = Record<string, unknown>;

export const isObject = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The fields whose value is defined, so optional fields stay absent rather than `undefined`. */
export function defined(fields: Fields): Fields {
  const out: Fields = {};
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) out[k] = v;
  return out;
}
