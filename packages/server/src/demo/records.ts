// What the demo's writers share: the project the sessions work on, and the small helpers that
// stamp and serialise their records.

export const PROJECT = '/home/demo/src/weather-cli';

export const iso = (ms: number): string => new Date(ms).toISOString();
export const jsonl = (records: readonly object[]): string =>
  records.map((r) => `${JSON.stringify(r)}\n`).join('');
export const mungedCwd = (cwd: string): string => cwd.replace(/[^A-Za-z0-9]/g, '-');

/** A clock that moves a few seconds per record. */
export function clock(start: number) {
  let t = start;
  return (seconds = 3): number => {
    t += seconds * 1000;
    return t;
  };
}
