// Plain-text rendering helpers shared by the commands.
import { withoutEscapes } from './terminal-text.js';

/** The ISO text of a time; undefined when there is none or no clock can show it. */
export const isoOf = (ms: number | undefined): string | undefined => {
  if (ms === undefined) return undefined;
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
};

export const isoTime = (ms: number | undefined): string => isoOf(ms) ?? '-';

export const shortTime = (ms: number | undefined): string =>
  isoOf(ms)?.slice(0, 16).replace('T', ' ') ?? '-'.padEnd(16);

/** One line of at most `max` characters: terminal escapes removed, line
 * breaks and tabs shown as spaces. */
export function oneLine(text: string, max: number): string {
  const flat = withoutEscapes(text.replace(/\r/g, '\n'))
    .replace(/[\t\n]+/g, ' ')
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export const count = (n: number | undefined): string => (n === undefined ? '-' : n.toLocaleString('en-US'));

/** A span of time in hours, minutes and seconds as a person says it: `4 h 12 min`, `3 min 5 s`, `12 s`. */
export function span(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) return '-';
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return ms > 0 && seconds === 0 ? '<1 s' : `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return seconds % 60 === 0 ? `${minutes} min` : `${minutes} min ${seconds % 60} s`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
}

/** Dollars to the cent, and to four places below a cent so a cheap session does not read as free. */
export const dollars = (usd: number): string =>
  usd > 0 && usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
