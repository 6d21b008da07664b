// What a process read, file by file, from an strace log of its read calls (`-f -ttt -y`): the kernel's
// count, independent of what the process says about itself.
import { readFileSync } from 'node:fs';

/** The strace command line that writes such a log to `out`. */
export const straceWrap = (out) => [
  'strace',
  '-f',
  '-qq',
  '-ttt',
  '-y',
  '-s',
  '0',
  '-e',
  'signal=none',
  '-e',
  'trace=read,pread64,readv,preadv,preadv2',
  '-o',
  out,
];

const CALL = /^(\d+)\s+([\d.]+)\s+(?:read|pread64|readv|preadv2?)\((\d+)<([^>]*)>/;
const UNFINISHED = /<unfinished \.\.\.>$/;
const RESUMED = /^(\d+)\s+([\d.]+)\s+<\.\.\. \w+ resumed>.*\)\s+=\s+(-?\d+)/;
const RESULT = /\)\s+=\s+(-?\d+)/;

/**
 * Bytes and files read per category, counting calls that finished up to `untilEpochMs`.
 * @param {string} log path of the strace log
 * @param {Record<string, (path: string) => boolean>} categories the first that claims a path gets it
 */
export function countReads(log, categories, untilEpochMs = Number.POSITIVE_INFINITY) {
  const out = {};
  for (const name of [...Object.keys(categories), 'other'])
    out[name] = { bytes: 0, files: new Set(), calls: 0 };
  const open = new Map();
  const add = (path, bytes) => {
    const name = Object.keys(categories).find((k) => categories[k](path)) ?? 'other';
    out[name].bytes += bytes;
    out[name].calls++;
    if (bytes > 0) out[name].files.add(path);
  };
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    const resumed = RESUMED.exec(line);
    if (resumed) {
      const path = open.get(resumed[1]);
      open.delete(resumed[1]);
      if (path !== undefined && Number(resumed[2]) * 1000 <= untilEpochMs && Number(resumed[3]) > 0)
        add(path, Number(resumed[3]));
      continue;
    }
    const call = CALL.exec(line);
    if (!call) continue;
    if (UNFINISHED.test(line)) {
      open.set(call[1], call[4]);
      continue;
    }
    const result = RESULT.exec(line);
    if (result && Number(call[2]) * 1000 <= untilEpochMs && Number(result[1]) > 0)
      add(call[4], Number(result[1]));
  }
  return out;
}
