// Where a session's work came from and where it went: "continued from" and "continued in" for
// hand-offs, "forked from … at" and "forked into" for forks, from cairn's own links. Each names the
// other session with a link to it in the reader, and to its chat when one drives it; a fork says
// whether the agent made it itself or was handed a document.
import { useEffect, useState } from 'preact/hooks';
import { listEveryChatSession } from '../chat/api.js';
import { chatHref, sessionHref } from '../route.js';
import { useSessionLinks } from './use-session-links.js';

const short = (sid: string): string => (sid.length > 13 ? `${sid.slice(0, 8)}…` : sid);

export function SessionLinks({ sid }: { sid: string | null | undefined }) {
  const links = useSessionLinks(sid);
  const [chats, setChats] = useState<ReadonlyMap<string, string>>(new Map());
  useEffect(() => {
    if (links.length === 0) return;
    let stop = false;
    // The chats that drive the other ends, by the agent's own id for their session.
    void listEveryChatSession().then((listed) => {
      if (stop || !listed.ok) return;
      setChats(
        new Map(listed.value.flatMap((c) => (c.nativeSessionId ? [[c.nativeSessionId, c.id] as const] : []))),
      );
    });
    return () => {
      stop = true;
    };
  }, [links]);

  if (!sid || links.length === 0) return null;
  return (
    <ul class="session-links small" aria-label="Linked sessions">
      {links.map((l) => {
        const incoming = l.to.sid === sid;
        const other = incoming ? l.from : l.to;
        const verb = incoming
          ? l.kind === 'fork'
            ? 'forked from'
            : 'continued from'
          : l.kind === 'fork'
            ? 'forked into'
            : 'continued in';
        const chat = chats.get(other.sid);
        return (
          <li
            key={`${l.from.sid}>${l.to.sid}`}
            class={`session-link ${incoming ? 'link-from' : 'link-to'}`}
            data-kind={l.kind}
            data-via={l.via}
            data-sid={other.sid}
          >
            {verb}{' '}
            <a href={sessionHref(other.agent, other.sid)} title={`${other.agent} session ${other.sid}`}>
              {other.agent} <code>{short(other.sid)}</code>
            </a>
            {l.kind === 'fork' && incoming && l.at_item && (
              <>
                {' '}
                at{' '}
                <a href={sessionHref(other.agent, other.sid, 'timeline', { uuid: l.at_item })}>
                  <code>{short(l.at_item)}</code>
                </a>
              </>
            )}
            {!incoming && l.at_item && (
              // Where this session's work was cut, in its own timeline: in a long session the reader
              // holds only a window of items, so its divider there is reached from here.
              <>
                {' '}
                from{' '}
                <a
                  class="link-at"
                  href={sessionHref(l.from.agent, l.from.sid, 'timeline', { uuid: l.at_item })}
                >
                  <code>{short(l.at_item)}</code>
                </a>
              </>
            )}
            {l.kind === 'fork' && l.via !== undefined && (
              <span class="link-via muted">{l.via === 'agent' ? ' (by the agent)' : ' (as a document)'}</span>
            )}
            {chat !== undefined && (
              <>
                {' '}
                · <a href={chatHref(chat)}>its chat</a>
              </>
            )}
          </li>
        );
      })}
    </ul>
  );
}
