// Numbers, sizes, instants and durations as people read them.

const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
const whole = new Intl.NumberFormat('en');

export const formatCount = (n: number): string =>
  Math.abs(n) < 10_000 ? whole.format(n) : compact.format(n);
export const formatExact = (n: number): string => whole.format(n);

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

const rtf = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** How long ago, in words, for the last day; an older instant is shown as its date. */
export function formatAgo(at: number | undefined, now = Date.now()): string {
  if (at === undefined) return '';
  const s = Math.round((at - now) / 1000);
  const abs = Math.abs(s);
  if (abs < 45) return 'just now';
  if (abs < 3600) return rtf.format(Math.round(s / 60), 'minute');
  if (abs < 86_400) return rtf.format(Math.round(s / 3600), 'hour');
  return new Date(at).toLocaleDateString();
}

const shortClock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });

/** How long ago for the last day, as `formatAgo` says it; an older instant as its date with the time
 * beside it, so two sessions of one day can be told apart. */
export function formatWhen(at: number | undefined, now = Date.now()): string {
  if (at === undefined) return '';
  if (Math.abs(at - now) < 86_400_000) return formatAgo(at, now);
  return `${new Date(at).toLocaleDateString()} ${shortClock.format(at)}`;
}

// Formatters are built once: building one per call costs more than the formatting.
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const clock = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hour12: false,
});

const fullDate = new Intl.DateTimeFormat(undefined, { dateStyle: 'full' });

export const formatDateTime = (at: number): string => dateTime.format(at);
export const formatClock = (at: number): string => clock.format(at);

/** The local calendar day of an instant, as a number that changes exactly when the date does. */
export function localDay(at: number): number {
  const d = new Date(at);
  return d.getFullYear() * 10_000 + (d.getMonth() + 1) * 100 + d.getDate();
}

/** A day as a divider names it: its full date, said as today or yesterday when it is one of those. */
export function formatDay(at: number, now = Date.now()): string {
  const date = fullDate.format(at);
  const day = localDay(at);
  if (day === localDay(now)) return `Today · ${date}`;
  const yesterday = new Date(now);
  yesterday.setDate(yesterday.getDate() - 1);
  if (day === localDay(yesterday.getTime())) return `Yesterday · ${date}`;
  return date;
}

/** The last folder names of a path, which is what tells projects apart. */
export function shortPath(path: string, parts = 2): string {
  const segs = path.split(/[\\/]/).filter((s) => s !== '');
  if (segs.length <= parts) return path;
  return `…/${segs.slice(-parts).join('/')}`;
}
