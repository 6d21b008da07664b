// What a list row shows beyond the head (the model, the prompts, the cost), from the whole transcript
// or kept up to date as a followed session grows: each read adds what it brought, so that an append
// costs the same whatever the session's length.
import type { TranscriptItem } from '@cairn/protocol';
import { type Transcript, type TranscriptEvent, TurnClock, type Usage } from '@cairn/transcript';
import type { LaneItems } from '../indexing/search-docs.js';
import { addRequest, emptyModelUsage, type ModelUsage, sessionCost } from '../usage/pricing.js';

/** Changes when a fact's rule does (the model became the main lane's; active time came): a head
 * stored under another is read again. */
export const LISTING_RULES = 2;

export interface ListingFacts {
  /** LISTING_RULES when these facts were read. */
  rules?: number;
  /** The main lane's model (its subagents' models are the rest of the mix). */
  model?: string;
  /** The person's prompts on the main lane: typed messages and slash commands. */
  prompts?: number;
  /** Dollars, from the price catalog; absent when a model used has no price. */
  costUsd?: number;
  /** The time spent in turns; absent without a timed prompt. */
  activeMs?: number;
}

/** The listing facts of a transcript read whole. */
export function listingFacts(agent: string, t: Transcript, lanes: readonly LaneItems[]): ListingFacts {
  const tally = new ListingTally(agent);
  tally.update(t, undefined, lanes);
  return tally.facts(t);
}

interface Counted {
  model: string;
  usage: Usage;
  onMainLane: boolean;
}

export class ListingTally {
  private readonly byModel = new Map<string, ModelUsage>();
  /** Requests per model on the main lane, which names the session's model. */
  private readonly mainRequests = new Map<string, number>();
  /** What each request added, to take back when a later record changes its usage. */
  private readonly counted = new Map<TranscriptEvent, Counted>();
  private main: LaneItems | undefined;
  /** The main lane's items were taken: its prompts are counted. */
  private hasMain = false;
  private clock = new TurnClock(undefined);
  private promptItems = 0;
  private prompts = 0;

  constructor(private readonly agent: string) {}

  /**
   * Takes in a read: `changed` holds the events it added and those it changed in place; without it
   * the transcript was read from the start. `lanes` are the items after the read, main lane first.
   */
  update(t: Transcript, changed: readonly TranscriptEvent[] | undefined, lanes: readonly LaneItems[]): void {
    const mainLane = t.agents.find((a) => a.parentId === undefined)?.id;
    if (!changed) this.restart(mainLane);
    this.addEvents(changed ?? t.events, mainLane);
    // A session whose main file is gone has no prompts to count, which is not zero prompts.
    const main = t.session.mainFileMissing ? undefined : lanes.find((l) => l.agentId === undefined);
    if (main !== this.main || !changed) {
      this.main = main;
      this.hasMain = main !== undefined;
      this.promptItems = 0;
      this.prompts = 0;
    }
    if (!main) return;
    const items = main.classification.items;
    for (; this.promptItems < items.length; this.promptItems++) this.addMainItem(items[this.promptItems]!);
  }

  /** Starts over, for a transcript read from its start whose main lane is `mainLane`. */
  restart(mainLane: string | undefined): void {
    this.byModel.clear();
    this.mainRequests.clear();
    this.counted.clear();
    this.clock = new TurnClock(mainLane);
  }

  /** Takes events a read added or changed in place, in the transcript's order. */
  addEvents(events: readonly TranscriptEvent[], mainLane: string | undefined): void {
    this.countRequests(events, mainLane);
    this.clockEvents(events);
  }

  /** Counts the requests among events a read added or changed in place, in any order. */
  countRequests(events: readonly TranscriptEvent[], mainLane: string | undefined): void {
    for (const e of events) if (e.kind === 'request') this.count(e, e.agentId === mainLane);
  }

  /** Times the turns by events in the transcript's order (a prompt taken again is known). */
  clockEvents(events: readonly TranscriptEvent[]): void {
    for (const e of events) this.clock.add(e);
  }

  /** Lets go of requests no later record will change: their counts stay, the references go. */
  forget(events: readonly TranscriptEvent[]): void {
    for (const e of events) if (e.kind === 'request') this.counted.delete(e);
  }

  /** Takes the main lane's next item, for its count of prompts. */
  addMainItem(item: TranscriptItem): void {
    this.hasMain = true;
    const typedCommand = item.type === 'notice:slash' && (item as { typed?: boolean }).typed === true;
    if (typedCommand || (item.type === 'message:user:in' && isTyped(item as { text?: unknown })))
      this.prompts++;
  }

  facts(t: Transcript): ListingFacts {
    const facts: ListingFacts = { rules: LISTING_RULES };
    const usage = [...this.byModel.values()]
      .filter((m) => m.inputTokens + m.outputTokens > 0)
      .sort((a, b) => b.requests - a.requests || a.model.localeCompare(b.model));
    const onMain = (m: ModelUsage) => this.mainRequests.get(m.model) ?? 0;
    const model = [...usage].sort((a, b) => onMain(b) - onMain(a))[0];
    if (model) facts.model = model.model;
    const cost = sessionCost(usage);
    if (cost !== undefined) facts.costUsd = cost;
    if (this.hasMain && !t.session.mainFileMissing) facts.prompts = this.prompts;
    const active = this.clock.activeMs;
    if (active !== undefined) facts.activeMs = active;
    return facts;
  }

  private count(e: TranscriptEvent & { kind: 'request' }, onMainLane: boolean): void {
    const before = this.counted.get(e);
    if (before) this.add(before, -1);
    const { model, usage } = e.payload;
    if (model === undefined || usage === undefined) {
      this.counted.delete(e);
      return;
    }
    // A copy: the event's usage may be changed in place by a later record.
    const now: Counted = { model, usage: { ...usage }, onMainLane };
    this.counted.set(e, now);
    this.add(now, 1);
  }

  private add(c: Counted, sign: 1 | -1): void {
    let m = this.byModel.get(c.model);
    if (!m) {
      m = emptyModelUsage(c.model);
      this.byModel.set(c.model, m);
    }
    addRequest(this.agent, m, c.usage, sign);
    if (m.requests === 0) this.byModel.delete(c.model);
    if (c.onMainLane) {
      const main = (this.mainRequests.get(c.model) ?? 0) + sign;
      if (main === 0) this.mainRequests.delete(c.model);
      else this.mainRequests.set(c.model, main);
    }
  }
}

/** A `message:user:in` that holds something the person wrote (not an empty record). */
const isTyped = (item: { text?: unknown }): boolean =>
  typeof item.text === 'string' && item.text.trim() !== '';
