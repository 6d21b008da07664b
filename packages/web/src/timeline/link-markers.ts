// Where the work left a session for another: a hand-off or a fork names the source item it was cut
// at, and the source's timeline marks that place with a divider linking to where the work went on.
// Pure: no DOM, no network.
import type { SessionLink } from '@cairn/protocol';
import type { Item } from './item.js';

/** The record an item was read from: items of one record may carry its uuid with a `#…` suffix. */
const recordOf = (uuid: string): string => {
  const hash = uuid.indexOf('#');
  return hash === -1 ? uuid : uuid.slice(0, hash);
};

/** The links that carry this session's work elsewhere (it is their source), oldest first. */
export function outgoingLinks(links: readonly SessionLink[], sid: string): SessionLink[] {
  return links.filter((l) => l.from.sid === sid);
}

/** What a marker says before the other session's name. */
export const markerVerb = (link: SessionLink): string =>
  link.kind === 'fork' ? 'forked into' : 'continued in';

/**
 * Each link's place among the items: the index of the last item of the record it was cut at (the
 * exact item when it is there), or undefined when that item is not among them (not loaded yet, or
 * gone), or the link names none: such markers go at the end. When the items are a window of a long
 * session (`window`), a link cut at an item outside it is left out rather than put at the end: it is
 * marked once the window holds its item (and the session's heading lists it meanwhile).
 */
export function markerPlaces(
  items: readonly Item[],
  links: readonly SessionLink[],
  window = false,
): Map<number, SessionLink[]> | undefined {
  if (links.length === 0) return undefined;
  const exact = new Map<string, number>();
  const byRecord = new Map<string, number>();
  for (let i = 0; i < items.length; i++) {
    const uuid = items[i]!.uuid;
    exact.set(uuid, i);
    byRecord.set(recordOf(uuid), i);
  }
  const places = new Map<number, SessionLink[]>();
  const atEnd: SessionLink[] = [];
  for (const link of links) {
    const at =
      link.at_item === undefined
        ? undefined
        : (exact.get(link.at_item) ?? byRecord.get(recordOf(link.at_item)));
    if (at === undefined) {
      if (!window || link.at_item === undefined) atEnd.push(link);
      continue;
    }
    const here = places.get(at);
    if (here) here.push(link);
    else places.set(at, [link]);
  }
  if (atEnd.length > 0) places.set(Number.POSITIVE_INFINITY, atEnd);
  return places;
}

/** A marker row's key: the same wherever it is placed, and one per linked session. */
export const markerKey = (link: SessionLink): string => `link>${link.to.agent}/${link.to.sid}`;
