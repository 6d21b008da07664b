// One session's report entries as the daemon keeps them between reports: numbers and model ids in one
// typed array, rather than an object per request. With tens of thousands of sessions the objects
// came to tens of megabytes, held for as long as the daemon ran; a report makes the objects it
// counts and lets them go.
import type { UsageEntry } from './usage-report.js';

/** Numbers kept per entry, in this order. */
const AT = 0;
const INPUT = 1;
const OUTPUT = 2;
const CACHE_READ = 3;
const CACHE_CREATION = 4;
const REASONING = 5;
/** NaN when the catalog has no price for the model. */
const COST = 6;
/** The model's id in modelNames. */
const MODEL = 7;
const WIDTH = 8;

/** Every model name seen, by id; they are few, and each is kept once. */
const modelNames: string[] = [];
const modelIds = new Map<string, number>();

function modelId(name: string): number {
  let id = modelIds.get(name);
  if (id === undefined) {
    id = modelNames.length;
    modelNames.push(name);
    modelIds.set(name, id);
  }
  return id;
}

export class SessionEntries {
  private constructor(
    readonly agent: string,
    readonly sessionId: string,
    private readonly project: string | undefined,
    private readonly title: string | undefined,
    /** WIDTH numbers per entry: one array, since most sessions have few requests and each array
     * costs more than a few of them. */
    private readonly numbers: Float64Array,
  ) {}

  /** Entries of one session (as `entriesOf` makes them: one agent, session, folder and title). */
  static of(agent: string, sessionId: string, entries: readonly UsageEntry[]): SessionEntries {
    const first = entries[0];
    const numbers = new Float64Array(entries.length * WIDTH);
    for (const [i, e] of entries.entries()) {
      if (
        e.agent !== agent ||
        e.sessionId !== sessionId ||
        e.project !== first?.project ||
        e.title !== first?.title
      )
        throw new Error(
          `usage entries of ${agent} ${sessionId}: entry ${i} is of another session, folder or title`,
        );
      const at = i * WIDTH;
      numbers[at + AT] = e.at;
      numbers[at + INPUT] = e.inputTokens;
      numbers[at + OUTPUT] = e.outputTokens;
      numbers[at + CACHE_READ] = e.cacheReadTokens;
      numbers[at + CACHE_CREATION] = e.cacheCreationTokens;
      numbers[at + REASONING] = e.reasoningTokens;
      numbers[at + COST] = e.cost ?? Number.NaN;
      numbers[at + MODEL] = modelId(e.model);
    }
    return new SessionEntries(agent, sessionId, first?.project, first?.title, numbers);
  }

  get length(): number {
    return this.numbers.length / WIDTH;
  }

  /** Appends the entries, as objects, to `out`. */
  addTo(out: UsageEntry[]): void {
    const n = this.numbers;
    for (let i = 0; i < this.length; i++) {
      const at = i * WIDTH;
      const cost = n[at + COST]!;
      // Every field in the one literal, in entriesOf's order: the objects share one shape.
      out.push({
        at: n[at + AT]!,
        agent: this.agent,
        sessionId: this.sessionId,
        project: this.project,
        title: this.title,
        model: modelNames[n[at + MODEL]!]!,
        inputTokens: whole(n[at + INPUT]!),
        outputTokens: whole(n[at + OUTPUT]!),
        cacheReadTokens: whole(n[at + CACHE_READ]!),
        cacheCreationTokens: whole(n[at + CACHE_CREATION]!),
        reasoningTokens: whole(n[at + REASONING]!),
        cost: Number.isNaN(cost) ? undefined : cost,
      });
    }
  }
}

/**
 * A count read back as a small integer where it is one: read from a typed array it is a double,
 * which every object and sum it reaches would then hold boxed (a heap number each).
 */
const whole = (n: number): number => ((n | 0) === n ? n | 0 : n);
