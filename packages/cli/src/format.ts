// Plain-text rendering helpers shared by the commands.

/** The ISO text of a time; undefined when there is none or no clock can show it. */
export const isoOf = (ms: number | undefined): string | undefined => {
  if (ms === undefined) return undefined;
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
};

export const isoTime = (ms: number | undefined): string => isoOf(ms) ?? '-';

export const shortTime = (ms: number | undefined): string =>
  isoOf(ms)?.slice(0, 16).replace('T', ' ') ?? '-'.padEnd(16);

/** One line of at most `max` characters, control characters shown as spaces. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export const count = (n: number | undefined): string => (n === undefined ? '-' : n.toLocaleString('en-US'));
