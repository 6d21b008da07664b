// Event ids: from the records' own ids, made unique by where the record is when one repeats.

export class EventIds {
  private readonly used = new Set<string>();

  /** `base` when it is free, else `base@where` (where = file index and line), numbered past that. */
  make(base: string, where: string): string {
    // An empty id names nothing; the record is known by its place instead.
    let id = base || where;
    if (this.used.has(id)) id = `${base}@${where}`;
    for (let n = 2; this.used.has(id); n++) id = `${base}@${where}#${n}`;
    this.used.add(id);
    return id;
  }

  /** Marks an id an earlier translation made as used, as making it again would. */
  take(id: string): void {
    this.used.add(id);
  }
}
