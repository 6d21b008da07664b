// Whole-file reads into buffers kept from one job to the next. A fresh buffer per file costs more
// than the read: its pages fault in on first touch, and the memory it takes outside the heap
// starts collections. Reading the 450 MB of the bench's Claude Code sessions took five to eight times
// as long with a fresh buffer per file as with these.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** Buffers larger than this, or beyond this in all, are used once and let go. */
const KEPT_BYTES = 64 * 1024 * 1024;

export class ReadBuffers {
  private readonly kept: Buffer[] = [];
  private keptBytes = 0;
  private used = 0;

  /**
   * The file's bytes as they are now. They stay valid until `release`: the caller must hold
   * nothing read here past it.
   */
  read(path: string): Uint8Array {
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      const buffer = this.take(size);
      let length = 0;
      while (length < size) {
        const n = readSync(fd, buffer, length, size - length, length);
        if (n === 0) break; // cut short since the stat
        length += n;
      }
      return buffer.subarray(0, length);
    } finally {
      closeSync(fd);
    }
  }

  /** Every buffer handed out so far may be written again. */
  release(): void {
    this.used = 0;
  }

  private take(size: number): Buffer {
    const slot = this.used;
    const current = this.kept[slot];
    if (current && current.length >= size) {
      this.used++;
      return current;
    }
    // A little room over the size, so that a file that grows a line is read into the same buffer.
    const room = Math.max(64 * 1024, Math.ceil(size * 1.25));
    const keptAfter = this.keptBytes - (current?.length ?? 0) + room;
    if (keptAfter > KEPT_BYTES) return Buffer.allocUnsafeSlow(size);
    const buffer = Buffer.allocUnsafeSlow(room);
    this.kept[slot] = buffer;
    this.keptBytes = keptAfter;
    this.used++;
    return buffer;
  }
}
