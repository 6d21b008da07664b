// Interleaving the files of a session by time while keeping each file's own order.

/**
 * Lists merged by timestamp, grown one list's new items at a time: each list keeps its order, an
 * item without a timestamp stays after its predecessor, and ties go to the earlier list (the main
 * file first). The result is the same as merging the whole lists at once: new items of a list can
 * only land after that list's last item, so only the merged tail past it is looked at again.
 */
export class TimeMerge<T> {
  /** The merged items; the array is kept and grown in place. */
  readonly items: T[] = [];
  /** Per merged item (same index): its sort key and the list it came from. */
  private readonly keys: number[] = [];
  private readonly lists: number[] = [];
  /** Per list: the key its next untimed item takes (the last timestamp seen in it). */
  private readonly lastKey: number[] = [];

  constructor(private readonly timeOf: (item: T) => number | undefined) {}

  /** Adds the next items of list `list`; answers the index of the first merged item that is new or moved. */
  add(list: number, added: readonly T[]): number {
    if (added.length === 0) return this.items.length;
    let last = this.lastKey[list] ?? Number.NEGATIVE_INFINITY;
    const keys = added.map((item) => {
      last = this.timeOf(item) ?? last;
      return last;
    });
    this.lastKey[list] = last;
    // Everything up to the list's last item stays; past it, a new item goes before the first other
    // item it sorts before (a tie goes to the earlier list).
    let at = this.items.length;
    while (at > 0 && this.lists[at - 1] !== list) at--;
    const first = keys[0]!;
    while (at < this.items.length && !this.before(first, list, at)) at++;
    if (at === this.items.length) {
      this.push(added, keys, list);
      return at;
    }
    const tailItems = this.items.splice(at);
    const tailKeys = this.keys.splice(at);
    const tailLists = this.lists.splice(at);
    let a = 0;
    let b = 0;
    while (a < tailItems.length || b < added.length) {
      if (
        b < added.length &&
        (a === tailItems.length ||
          keys[b]! < tailKeys[a]! ||
          (keys[b] === tailKeys[a] && list < tailLists[a]!))
      ) {
        this.items.push(added[b]!);
        this.keys.push(keys[b]!);
        this.lists.push(list);
        b++;
      } else {
        this.items.push(tailItems[a]!);
        this.keys.push(tailKeys[a]!);
        this.lists.push(tailLists[a]!);
        a++;
      }
    }
    return at;
  }

  /**
   * Forgets the first `count` merged items. New items still land after them, as they would in the
   * whole merge: every list's new items go after its own earlier ones, and the items forgotten sort
   * before every item kept.
   */
  letGo(count: number): void {
    this.items.splice(0, count);
    this.keys.splice(0, count);
    this.lists.splice(0, count);
  }

  /** Whether an item of `list` with `key` sorts before the merged item at `at`. */
  private before(key: number, list: number, at: number): boolean {
    const other = this.keys[at]!;
    return key < other || (key === other && list < this.lists[at]!);
  }

  private push(added: readonly T[], keys: readonly number[], list: number): void {
    for (const [i, item] of added.entries()) {
      this.items.push(item);
      this.keys.push(keys[i]!);
      this.lists.push(list);
    }
  }
}
