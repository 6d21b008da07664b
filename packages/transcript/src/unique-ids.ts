// Ids made unique within one transcript. Copied records repeat their ids, sometimes thousands
// of times, so finding the next free one must not rescan every number already taken.

/** Hands out `id` itself, else the first free `id~n` (n from 2), in constant time per id. */
export class UniqueIds {
  private readonly used = new Set<string>();
  /** Per base id, the number below which every `id~n` is known to be taken. */
  private readonly next = new Map<string, number>();

  take(id: string): string {
    if (!this.used.has(id)) {
      this.used.add(id);
      return id;
    }
    // Taken ids stay taken, so numbers tried before for this base need no second look.
    let n = this.next.get(id) ?? 2;
    let unique = `${id}~${n}`;
    while (this.used.has(unique)) unique = `${id}~${++n}`;
    this.next.set(id, n + 1);
    this.used.add(unique);
    return unique;
  }
}
