// The day a request is counted on: dated once per quarter hour of UTC where the whole quarter falls
// on one date, and request by request where it does not. Across a year, midnight and every clock
// change of zones a half hour and three quarters off UTC, the date is the zone formatter's own.
import { describe, expect, it } from 'vitest';
import { dateIn } from '../src/usage/usage-report.js';

const ZONES = [
  undefined,
  'America/New_York',
  'Asia/Kathmandu',
  'America/St_Johns',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
];

describe('dateIn', () => {
  it.each(ZONES)('dates every moment as the formatter of %s does', (zone) => {
    const format = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    const from = Date.parse('2025-12-25T00:00:00Z');
    const to = Date.parse('2027-01-05T00:00:00Z');
    const wrong: string[] = [];
    // A step that is no divisor of a quarter hour lands at every offset within one over the year.
    for (let at = from; at < to; at += 29 * 60_000 + 13_017) {
      const expected = format.format(at);
      if (dateIn(at, zone) !== expected) wrong.push(`${new Date(at).toISOString()} ${expected}`);
    }
    // Either side of every quarter hour: the zone's midnights and clock changes among them.
    for (let day = from; day < to; day += 86_400_000) {
      for (let minute = 0; minute < 24 * 60; minute += 15) {
        for (const at of [day + minute * 60_000 - 1, day + minute * 60_000]) {
          const expected = format.format(at);
          if (dateIn(at, zone) !== expected) wrong.push(`${new Date(at).toISOString()} ${expected}`);
        }
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
  });
});
