// Small numbers helpers for the bench's tables.

export const median = (xs) => percentile(xs, 50);

/** Nearest-rank percentile; NaN for no samples. */
export function percentile(xs, p) {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

export const mb = (bytes) => bytes / 1024 / 1024;

export function bytesText(bytes) {
  if (!Number.isFinite(bytes)) return '?';
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${mb(bytes).toFixed(1)} MB`;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for `promise`, or `ms` at most; no timer is left behind to keep the process alive. */
export async function within(promise, ms) {
  let timer;
  try {
    return await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
