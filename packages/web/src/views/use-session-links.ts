// A session's links with other sessions (hand-offs and forks either way), read from the daemon and
// asked for again now and then, so a hand-off started elsewhere shows up without a reload.
import type { SessionLink } from '@cairn/protocol';
import { useEffect, useState } from 'preact/hooks';
import { useServices } from '../context.js';

/** How often the links are asked for again. */
const REFRESH_MS = 5_000;

const NONE: readonly SessionLink[] = [];

const sameLinks = (a: readonly SessionLink[], b: readonly SessionLink[]): boolean =>
  a.length === b.length &&
  a.every((l, i) => {
    const m = b[i]!;
    return (
      l.kind === m.kind &&
      l.from.sid === m.from.sid &&
      l.to.sid === m.to.sid &&
      l.to.agent === m.to.agent &&
      l.at_item === m.at_item &&
      l.via === m.via
    );
  });

/** The links with `sid` at either end, oldest first; the same array while they do not change. */
export function useSessionLinks(sid: string | null | undefined): readonly SessionLink[] {
  const { conn } = useServices();
  const [links, setLinks] = useState<readonly SessionLink[]>(NONE);
  useEffect(() => {
    setLinks(NONE);
    if (!sid) return;
    let stop = false;
    const load = async () => {
      const r = await conn.request('session_links_read', { sid });
      if (stop || !r.ok) return;
      const mine = r.value.links.filter((l) => l.from.sid === sid || l.to.sid === sid);
      // Kept as it was when nothing changed: the timeline rebuilds its rows on a new array.
      setLinks((was) => (sameLinks(was, mine) ? was : mine));
    };
    void load();
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void load();
    }, REFRESH_MS);
    return () => {
      stop = true;
      clearInterval(timer);
    };
  }, [sid]);
  return sid ? links : NONE;
}
