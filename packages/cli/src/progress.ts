// A progress line on stderr, only when stderr is a terminal, so pipes and --json stay clean.

export interface Progress {
  update(done: number, total?: number, label?: string): void;
  done(): void;
}

const silent: Progress = { update() {}, done() {} };

export function progressBar(title: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return silent;
  let last = 0;
  return {
    update(done, total, label = '') {
      const now = Date.now();
      if (now - last < 80) return;
      last = now;
      const width = 24;
      const bar =
        total && total > 0
          ? `[${'#'.repeat(Math.round((done / total) * width)).padEnd(width)}] ${done}/${total}`
          : `${done}`;
      stream.write(`\r\x1b[K${title} ${bar} ${label}`.slice(0, (stream.columns ?? 80) - 1));
    },
    done() {
      stream.write('\r\x1b[K');
    },
  };
}
