// The list's star and tag filters and the search by tag, as pure functions over the marks, and the
// two filters' trip through the URL.
import type { SessionMarks } from '@cairn/protocol';
import { describe, expect, it } from 'vitest';
import { formatRoute, parseRoute, type Route } from '../src/route.js';
import { passesMarks, taggedBy } from '../src/sessions/marks.js';

const marks = (sid: string, fields: Partial<SessionMarks> = {}): SessionMarks => ({
  agent: 'claude-code',
  sid,
  starred: false,
  tags: [],
  items: [],
  updated_at: 1,
  ...fields,
});

describe('marks in the session list', () => {
  it('keeps a starred session, or one with a starred row, and one with the tag', () => {
    expect(passesMarks(marks('a', { starred: true }), { starred: true })).toBe(true);
    expect(passesMarks(marks('b', { items: [{ item_uuid: 'u' }] }), { starred: true })).toBe(true);
    expect(passesMarks(marks('c', { tags: ['x'] }), { starred: true })).toBe(false);
    expect(passesMarks(undefined, { starred: true })).toBe(false);
    expect(passesMarks(undefined, {})).toBe(true);
    expect(passesMarks(marks('d', { tags: ['release', 'ops'] }), { tag: 'ops' })).toBe(true);
    expect(passesMarks(marks('d', { tags: ['release'] }), { tag: 'rel' })).toBe(false);
  });

  it('finds sessions by their tags, every word of the query in one, with or without #', () => {
    const all = [
      marks('a', { tags: ['release-notes', 'Urgent'] }),
      marks('b', { tags: ['release'] }),
      marks('c', { tags: ['notes'] }),
    ];
    expect(taggedBy(all, 'release').map((m) => m.sid)).toEqual(['a', 'b']);
    expect(taggedBy(all, '#urgent').map((m) => m.sid)).toEqual(['a']);
    expect(taggedBy(all, 'release notes').map((m) => m.sid)).toEqual(['a']);
    expect(taggedBy(all, 'nothing')).toEqual([]);
    expect(taggedBy(all, '  ')).toEqual([]);
  });

  it('keeps the star and tag filters in the address', () => {
    const route: Route = { view: 'sessions', query: 'q', tools: false, starred: true, tag: 'a b/#c' };
    expect(parseRoute(formatRoute(route))).toEqual(route);
    expect(parseRoute('#/?starred=0')).toEqual({ view: 'sessions', query: '', tools: false });
  });
});
