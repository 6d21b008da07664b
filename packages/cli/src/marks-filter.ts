// `--tag T` and `--starred`: the sessions a person marked, read from cairn's own marks database.
// The database is the one the daemon keeps; SQLite lets both read it at once, so the command reads
// it itself whether or not a daemon runs, and never creates it when no mark was ever made.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from './usage.js';

export interface MarksFilterValues {
  tag?: string[] | undefined;
  starred?: boolean | undefined;
}

export interface MarksFilter {
  /** The sessions kept, as `agent\0sid` keys. */
  readonly sessions: ReadonlySet<string>;
  keeps(agent: string, sid: string): boolean;
  /** What was asked for, for a listing it emptied ("--tag review --starred"). */
  readonly described: string;
}

/** The options the filter adds to a command's table. */
export const MARKS_OPTIONS = {
  tag: { type: 'string', multiple: true },
  starred: { type: 'boolean' },
} as const;

export const marksKey = (agent: string, sid: string): string => `${agent}\u0000${sid}`;

/** The marks filter the options ask for, or undefined when they ask for none. A session is kept when
 * it carries every tag given (and its star, with `--starred`). */
export async function marksFilter(
  values: MarksFilterValues,
  home: string,
  usage: string,
): Promise<MarksFilter | undefined> {
  const tags = (values.tag ?? []).map((t) => t.trim());
  if (tags.length === 0 && !values.starred) return undefined;
  const { MarksStore, badTag } = await import('@cairn/server/marks-store');
  const bad = badTag(tags);
  if (bad !== undefined)
    throw new UsageError(
      `bad --tag '${values.tag?.[bad]}': a tag is text that is not blank and holds no control characters\nusage: ${usage}`,
    );
  const sessions = new Set<string>();
  const path = join(home, 'marks.sqlite');
  if (existsSync(path)) {
    const store = new MarksStore(path);
    try {
      for (const m of store.read()) {
        if (values.starred && !m.starred) continue;
        if (tags.every((t) => m.tags.includes(t))) sessions.add(marksKey(m.agent, m.sid));
      }
    } finally {
      store.close();
    }
  }
  const described = [...tags.map((t) => `--tag ${t}`), values.starred ? '--starred' : '']
    .filter(Boolean)
    .join(' ');
  return { sessions, keeps: (agent, sid) => sessions.has(marksKey(agent, sid)), described };
}
