// Indexing a session too large to hold whole: read a part of its main file at a time, each part's
// settled items made documents and handed on in batches as they fill, its summary, listing facts and
// requests folded as the parts come. A read on a worker thread then holds a part, the items still
// open and the folds, not the session and its documents: a 1 GB rollout read whole took several GB.
//
// The documents and facts are those prepareIndex gives (the documents per lane in the same order,
// lanes interleaved part by part). Where a part would change what was already handed on, the parts
// say 'restart' and the session is read whole after all.
import {
  laneItemsInParts,
  type SessionPlatform,
  SummaryFold,
  type Transcript,
  type TranscriptEvent,
} from '@cairn/transcript';
import { ListingTally } from '../reader/listing.js';
import { turnInFlight } from '../reader/run-state.js';
import type { FileStamp } from '../reader/source-files.js';
import { usageRequest } from '../usage/session-requests.js';
import type { IndexDoc, UsageRequest } from './index-db.js';
import {
  batchOf,
  DOCS_PER_WRITE,
  type DocBatch,
  type FileMarks,
  fileMarks,
  headFactsOf,
  type IndexJob,
  type PreparedFacts,
  readWhole,
  stampsOf,
} from './index-job.js';
import { ItemKeys, itemDoc } from './search-docs.js';

/** Sessions of at least this many bytes are indexed a part at a time rather than read whole. */
export const INDEX_IN_PARTS_BYTES = 32 * 1024 * 1024;

/**
 * What an index read in parts hands on, in this order: its stamps; batches of documents (after a
 * 'restart', those of a whole read, in place of every one before it); and the facts, or why the
 * session could not be read.
 */
export type IndexPart =
  | { kind: 'start'; stamps: [string, FileStamp][]; marks?: [string, FileMarks][] }
  | { kind: 'docs'; batch: DocBatch }
  | { kind: 'restart'; why: string }
  | { kind: 'end'; facts: (PreparedFacts & { ok: true }) | { ok: false; error: string } };

export interface IndexPartsOptions {
  /** Document batches as JSON bytes, for a worker to hand over. */
  readonly bytes?: boolean;
  /** The files' marks beside their stamps (see PreparedIndex.marks). */
  readonly marks?: boolean;
  /** Bytes of the main file read at a time. */
  readonly partBytes?: number;
}

/** Items per lane whose keys' bases are remembered at least (see ItemKeys). */
const KEYS_WINDOW = 10_000;

/** Events placed since a request beyond which a record no longer changes it. */
const REQUEST_HOLD_EVENTS = 4096;

/** The requests among the latest events placed, which later records may still change. */
class RecentRequests {
  private held: { at: number; e: TranscriptEvent }[] = [];
  private placed = 0;

  /** Takes the events a part placed; answers the requests now old enough to let go of (all at the end). */
  add(events: readonly TranscriptEvent[], end = false): TranscriptEvent[] {
    for (const e of events) {
      if (e.kind === 'request') this.held.push({ at: this.placed, e });
      this.placed++;
    }
    const until = end ? Number.POSITIVE_INFINITY : this.placed - REQUEST_HOLD_EVENTS;
    let n = 0;
    while (n < this.held.length && this.held[n]!.at < until) n++;
    return this.held.splice(0, n).map((h) => h.e);
  }
}

export async function* prepareInParts(
  platform: SessionPlatform,
  job: IndexJob,
  opts: IndexPartsOptions = {},
): AsyncGenerator<IndexPart> {
  const asBytes = opts.bytes ?? false;
  const stamps = await stampsOf(job.files);
  const marks = opts.marks ? await fileMarks(platform, job.agent, stamps) : undefined;
  yield { kind: 'start', stamps, ...(marks ? { marks } : {}) };

  const fold = new SummaryFold();
  const tally = new ListingTally(job.agent);
  const keys = new Map<string, ItemKeys>();
  // The requests, in order: the older ones as counted, the latest as events, which a later record
  // may still fill in (the next line of the same message). Then they are let go of.
  const requests: UsageRequest[] = [];
  const recent = new RecentRequests();
  // Placed events keep their seq, and are placed in its order: one below these marks was clocked
  // (or let go of as a request) at an earlier step.
  let clockedBelow = 0;
  let forgottenBelow = 0;
  let batch: IndexDoc[] = [];
  let end: Transcript | undefined;
  let whole: string | undefined;
  const target = { agent: job.agent, path: job.path };
  for await (const part of laneItemsInParts(
    platform,
    target,
    opts.partBytes ? { partBytes: opts.partBytes } : {},
  )) {
    if ('whole' in part) {
      whole = part.whole;
      break;
    }
    if (!part.ok) {
      yield { kind: 'end', facts: { ok: false, error: part.error.message } };
      return;
    }
    const { t, delta, first, last, items, placed } = part.value;
    if (delta.revised.some((e) => e.kind === 'request' && e.seq < forgottenBelow)) {
      whole = 'a record changed a request long after it';
      break;
    }
    fold.update(t, delta);
    // Folded again from the event list, which no longer holds the events let go of.
    if (fold.refolds !== 1) {
      whole = 'the summary would be folded again from the start';
      break;
    }
    const mainLane = t.agents.find((a) => a.parentId === undefined)?.id;
    if (first) tally.restart(mainLane);
    // A request let go of is counted already: a mark it gains later (a compaction's shadow) is no change.
    const changed = delta.updated.filter((e) => e.seq >= forgottenBelow);
    tally.countRequests(first ? delta.added : [...delta.added, ...changed], mainLane);
    // Turns are timed, and requests listed, in the whole read's order: the events that keep their
    // place, and the changes to those already taken.
    tally.clockEvents(first ? placed : [...delta.updated.filter((e) => e.seq < clockedBelow), ...placed]);
    if (placed.length > 0) clockedBelow = placed.at(-1)!.seq + 1;
    const settled = recent.add(placed);
    fold.forget(settled);
    tally.forget(settled);
    for (const e of settled) {
      forgottenBelow = e.seq + 1;
      const r = usageRequest(e);
      if (r) requests.push(r);
    }
    for (const { lane, item } of items) {
      if (lane === undefined) tally.addMainItem(item);
      const laneKeys = keys.get(lane ?? '') ?? new ItemKeys(lane ?? '', KEYS_WINDOW);
      keys.set(lane ?? '', laneKeys);
      const doc = itemDoc(item, laneKeys.next(item), lane);
      if (!doc) continue;
      batch.push(doc);
      if (batch.length === DOCS_PER_WRITE) {
        yield { kind: 'docs', batch: batchOf(batch, asBytes) };
        batch = [];
      }
    }
    if (last) end = t;
  }

  if (!end) {
    yield { kind: 'restart', why: whole ?? 'the read ended before the session did' };
    const read = await readWhole(platform, job, asBytes);
    if (!read.ok) {
      yield { kind: 'end', facts: read };
      return;
    }
    const { docs, ...facts } = read;
    for (const b of docs) yield { kind: 'docs', batch: b };
    yield { kind: 'end', facts };
    return;
  }
  if (batch.length > 0) yield { kind: 'docs', batch: batchOf(batch, asBytes) };
  for (const e of recent.add([], true)) {
    const r = usageRequest(e);
    if (r) requests.push(r);
  }
  yield {
    kind: 'end',
    facts: {
      ok: true,
      summary: fold.summary(end),
      capabilities: [...end.capabilities],
      inFlight: turnInFlight(end),
      listing: tally.facts(end),
      session: headFactsOf(end),
      requests,
    },
  };
}
