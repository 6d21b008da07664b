// The session's counts that several views show (failed calls, subagents, compactions), with one
// definition: the library's summary, which counts every lane (the session's own and each subagent's).
// The toolbar, the Summary tab and the Dump tab all say them through these words, so they agree and
// name what they cover.
import type { OpArgs, SessionSummary } from '@cairn/protocol';
import { useEffect, useState } from 'preact/hooks';
import { formatExact } from '../format.js';
import type { Connection } from '../rpc.js';

export type SessionNumbers = Pick<SessionSummary, 'failedTools' | 'subagents' | 'compactions'>;

/** Which lanes a count covers, in words. */
export const ALL_LANES = 'all lanes';

const plural = (n: number, one: string, many: string): string => `${formatExact(n)} ${n === 1 ? one : many}`;

/** "13 failed calls, all lanes"; undefined when the agent does not record failures. */
export const failedCallsText = (n: number | undefined): string | undefined =>
  n === undefined ? undefined : `${plural(n, 'failed call', 'failed calls')}, ${ALL_LANES}`;

export const subagentsText = (n: number | undefined): string | undefined =>
  n === undefined ? undefined : plural(n, 'subagent', 'subagents');

export const compactionsText = (n: number | undefined): string | undefined =>
  n === undefined ? undefined : `${plural(n, 'compaction', 'compactions')}, ${ALL_LANES}`;

/** The counts as a line's parts, leaving out what is not recorded. */
export function numbersParts(numbers: SessionNumbers | undefined): string[] {
  if (!numbers) return [];
  return [
    failedCallsText(numbers.failedTools),
    subagentsText(numbers.subagents),
    compactionsText(numbers.compactions),
  ].filter((p): p is string => p !== undefined);
}

/** The session's counts, read once per visit; undefined until they arrive (or when they cannot be read). */
export function useSessionNumbers(conn: Connection, agent: string, sid: string): SessionNumbers | undefined {
  const [numbers, setNumbers] = useState<SessionNumbers | undefined>(undefined);
  useEffect(() => {
    let current = true;
    const args = { sid, agent } as OpArgs<'session_summary_read'>;
    void conn.request('session_summary_read', args).then((reply) => {
      if (!current || !reply.ok) return;
      const { failedTools, subagents, compactions } = reply.value.summary;
      setNumbers({ failedTools, subagents, compactions });
    });
    return () => {
      current = false;
    };
  }, [conn, agent, sid]);
  return numbers;
}
