// Every lane's items handed out while a session is read a part of its main file at a time, each once
// nothing later can change it, in the order a whole read's classification gives them per lane: what
// an index of a session too large to hold whole reads. Each step also carries the part's delta, for
// folds that take events (a summary, usage); the events its part added are let go of once the caller
// asks for the next step, so memory holds a part and what is still open rather than the session.
//
// Where a part changes what a whole read would give for an item already handed out, or a lane comes
// to light after some of its events went by, the answer is 'whole': the caller reads the session whole.
import type { TranscriptItem } from '@cairn/protocol';
import type { TranscriptDelta } from './incremental.js';
import { ITEM_ROOTS, type Selection } from './items/select.js';
import type { SessionTarget, Transcript, TranscriptEvent } from './model.js';
import type { SessionPlatform } from './platform.js';
import type { LoadTranscriptError, Result } from './result.js';
import {
  placed,
  type ReadWhole,
  readsWhole,
  type SessionPartsOptions,
  sessionParts,
} from './session-parts.js';
import { SettledItems } from './settled-items.js';

/** One lane's item: `lane` is undefined for the main lane, else the subagent lane's id. */
export interface LaneItem {
  readonly lane: string | undefined;
  readonly item: TranscriptItem;
}

export interface LaneItemsStep {
  /** The transcript so far; its event list starts after the events let go of. */
  readonly t: Transcript;
  /** What this part did to the transcript: the first step's holds every event read. */
  readonly delta: TranscriptDelta;
  readonly first: boolean;
  /** This step read the session's end: every item has been handed out. */
  readonly last: boolean;
  /** The items settled by this part, lane by lane, each lane's in its order. */
  readonly items: readonly LaneItem[];
  /**
   * The events this part placed for good: nothing a later part adds goes before them (at the last
   * step, all that were left). Taken step by step, they are the whole read's events in its order.
   */
  readonly placed: readonly TranscriptEvent[];
}

export type LaneItemsPart = Result<LaneItemsStep, LoadTranscriptError> | ReadWhole;

/** Keeps every item: an index looks at all of them. */
const EVERYTHING: Selection = { elements: ITEM_ROOTS, keeps: () => true };

/** Item settling is per lane; the main lane's tracker is keyed by ''. */
const MAIN = '';

export async function* laneItemsInParts(
  platform: SessionPlatform,
  target: SessionTarget,
  options: SessionPartsOptions = {},
): AsyncGenerator<LaneItemsPart> {
  const lanes = new Map<string, SettledItems>([[MAIN, new SettledItems(EVERYTHING)]]);
  /** The lanes events of earlier parts belonged to: a lane among them that is not tracked yet came to
   * light too late for its items to be settled here. */
  const seen = new Set<string>();
  /** Where the events not yet placed start in the list. */
  let from = 0;
  for await (const step of sessionParts(platform, target, options)) {
    if (readsWhole(step) || !step.ok) {
      yield step;
      return;
    }
    const { t, delta, first, last, main, letGo } = step.value;
    const mainId = t.agents.find((a) => a.parentId === undefined)?.id;
    for (const lane of t.agents) {
      if (lane.parentId === undefined || lanes.has(lane.id)) continue;
      if (seen.has(lane.id)) {
        yield { whole: `subagent ${lane.id} came to light after some of its events were read` };
        return;
      }
      lanes.set(lane.id, new SettledItems(EVERYTHING, { agent_id: lane.id }));
    }
    const items: LaneItem[] = [];
    for (const [id, settled] of lanes) {
      const out = settled.take(t, delta, last, main);
      if (out === 'whole') {
        yield { whole: settled.why ?? 'an item changed after it was read' };
        return;
      }
      const lane = id === MAIN ? undefined : id;
      for (const s of out) items.push({ lane, item: s.item });
    }
    for (const e of delta.added) if (e.agentId !== mainId) seen.add(e.agentId);
    const kept = last ? t.events.length : placed(t.events, main);
    yield { ok: true, value: { t, delta, first, last, items, placed: t.events.slice(from, kept) } };
    if (last) return;
    // A translation that cannot let go (its adapter's keeps every event) goes on from where this stopped.
    if (letGo(kept)) {
      from = 0;
      t.skipped.length = 0;
    } else from = kept;
  }
}
