// What indexing a session computes from its files alone: its summary, listing facts and searchable
// documents. It runs on a worker thread for the cold index, so that the daemon keeps answering while
// a large history is read, and in-process when no worker is at hand. Only these results cross threads.
import {
  foldTranscript,
  loadTranscript,
  type SessionPlatform,
  type SessionSummaryWithPrompts,
  type Transcript,
} from '@cairn/transcript';
import type { IndexDoc } from './index-db.js';
import { sessionCost, usageByModel } from './pricing.js';
import { turnInFlight } from './run-state.js';
import { type LaneItems, laneItems, searchDocs } from './search-docs.js';
import { type FileStamp, stamp } from './source-files.js';

/** What a list row shows beyond the head, read from the whole transcript. */
export interface ListingFacts {
  /** The model that answered the most requests. */
  model?: string;
  /** The person's prompts on the main lane: typed messages and slash commands. */
  prompts?: number;
  /** Dollars, from the price catalog; absent when a model used has no price. */
  costUsd?: number;
}

export interface IndexJob {
  agent: string;
  /** The session's main file. */
  path: string;
  /** Its files as the catalog knows them: stamped before the read, so that a change during it shows. */
  files: readonly string[];
}

/** Head facts that only a full read finds (a title written late, a cwd past the first records). */
export interface TranscriptHeadFacts {
  title?: string;
  cwd?: string;
  startedAt?: number;
}

/** What the catalog records of a session beside its documents. */
export interface PreparedFacts {
  summary: SessionSummaryWithPrompts;
  capabilities: string[];
  inFlight: boolean;
  listing: ListingFacts;
  session: TranscriptHeadFacts;
}

export type PreparedIndex = (
  | (PreparedFacts & {
      ok: true;
      /** Every searchable document; the catalog leaves out those the index already holds. */
      docs: IndexDoc[];
    })
  | { ok: false; error: string }
) & {
  /** Each file's stamp taken before it was read (a file gone by then has none). */
  stamps: [string, FileStamp][];
};

export async function prepareIndex(platform: SessionPlatform, job: IndexJob): Promise<PreparedIndex> {
  const stamps: [string, FileStamp][] = [];
  for (const f of job.files) {
    const st = await stamp(f);
    if (st) stamps.push([f, st]);
  }
  const loaded = await loadTranscript(platform, { agent: job.agent, path: job.path });
  if (!loaded.ok) return { ok: false, error: loaded.error.message, stamps };
  const t = loaded.value;
  const lanes = laneItems(t);
  return {
    ok: true,
    summary: foldTranscript(t, { prompts: true }),
    capabilities: [...t.capabilities],
    inFlight: turnInFlight(t),
    listing: listingFacts(job.agent, t, lanes),
    session: headFactsOf(t),
    docs: searchDocs(lanes),
    stamps,
  };
}

export function headFactsOf(t: Transcript): TranscriptHeadFacts {
  const facts: TranscriptHeadFacts = {};
  if (t.session.title !== undefined) facts.title = t.session.title;
  if (t.session.cwd !== undefined) facts.cwd = t.session.cwd;
  if (t.session.startedAt !== undefined) facts.startedAt = t.session.startedAt;
  return facts;
}

/** The model, prompts and cost of a session, from its transcript and main-lane items. */
export function listingFacts(agent: string, t: Transcript, lanes: readonly LaneItems[]): ListingFacts {
  const facts: ListingFacts = {};
  const usage = usageByModel(t);
  if (usage[0]) facts.model = usage[0].model;
  const cost = sessionCost(agent, usage);
  if (cost !== undefined) facts.costUsd = cost;
  // A session whose main file is gone has no prompts to count, which is not zero prompts.
  const main = t.session.mainFileMissing ? undefined : lanes.find((l) => l.agentId === undefined);
  if (main) {
    let prompts = 0;
    for (const item of main.classification.items) {
      const typedCommand = item.type === 'notice:slash' && (item as { typed?: boolean }).typed === true;
      if (typedCommand || (item.type === 'message:user:in' && isTyped(item as { text?: unknown }))) prompts++;
    }
    facts.prompts = prompts;
  }
  return facts;
}

/** A `message:user:in` that holds something the person wrote (not an empty record). */
const isTyped = (item: { text?: unknown }): boolean =>
  typeof item.text === 'string' && item.text.trim() !== '';
