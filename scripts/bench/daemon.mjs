// `cairn serve` as a child process for the bench: started in a process group of its own (so that
// stopping it never misses a child), its URL and log lines read as they come, its peak memory and
// read count taken from /proc, stopped gracefully and killed if it will not stop.
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const live = new Set();

/** The kernel's clock ticks per second, in which /proc counts CPU time (100 on Linux almost always). */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Kills every daemon still running; for the bench's exit and signal handlers. */
export function killAll() {
  for (const d of live) d.kill();
}

export class Daemon {
  /**
   * @param {object} o
   * @param {string} o.cli path of bin/cairn.js
   * @param {Record<string, string>} o.env
   * @param {string[]} [o.wrap] a command the daemon runs under (strace), its arguments included
   * @param {string[]} [o.args] more arguments for `cairn serve`
   */
  constructor({ cli, env, wrap = [], args = [] }) {
    const command = [...wrap, process.execPath, cli, 'serve', '--port', '0', '--no-demo', ...args];
    this.startedAt = performance.now();
    this.child = spawn(command[0], command.slice(1), {
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.wrapped = wrap.length > 0;
    this.lines = [];
    this.listeners = new Set();
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    this.exited.then(() => live.delete(this));
    live.add(this);
    const read = (stream, name) =>
      createInterface({ input: stream }).on('line', (text) => {
        const line = { at: performance.now(), stream: name, text };
        this.lines.push(line);
        for (const l of this.listeners) l(line);
      });
    read(this.child.stdout, 'stdout');
    read(this.child.stderr, 'stderr');
    this.url = this.waitFor(/cairn: serving at (\S+)/, 120_000).then(({ match, at }) => {
      const url = new URL(match[1]);
      return { url, port: Number(url.port), token: url.searchParams.get('token'), at };
    });
  }

  /** The first line (seen already or to come) matching `re`, with the time it arrived. */
  waitFor(re, timeoutMs) {
    return new Promise((resolve, reject) => {
      const check = (line) => {
        const match = re.exec(line.text);
        if (!match) return false;
        cleanup();
        resolve({ match, at: line.at });
        return true;
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`daemon: no line matching ${re} within ${timeoutMs} ms\n${this.tail()}`));
      }, timeoutMs);
      const onExit = () => {
        cleanup();
        reject(new Error(`daemon exited before printing ${re}\n${this.tail()}`));
      };
      const cleanup = () => {
        clearTimeout(timer);
        this.listeners.delete(check);
        this.child.off('exit', onExit);
      };
      if (this.lines.some(check)) return;
      this.listeners.add(check);
      this.child.once('exit', onExit);
    });
  }

  tail(n = 10) {
    return this.lines
      .slice(-n)
      .map((l) => `  ${l.stream}: ${l.text}`)
      .join('\n');
  }

  /** The pid of the daemon itself: the child, or the child's child when it runs under a wrapper. */
  pid() {
    if (!this.wrapped) return this.child.pid;
    try {
      const kids = readFileSync(`/proc/${this.child.pid}/task/${this.child.pid}/children`, 'utf8').trim();
      return Number(kids.split(/\s+/)[0]) || undefined;
    } catch {
      return undefined;
    }
  }

  /** Peak resident memory (MB) and bytes read through read calls so far, from /proc. */
  usage() {
    const pid = this.pid();
    const out = { peakRssMb: Number.NaN, rchar: Number.NaN };
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      out.peakRssMb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
      out.rchar = Number(/rchar:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1]);
    } catch {
      // Gone already.
    }
    return out;
  }

  /**
   * CPU time (ms, user and system, every thread of the process) and resident memory now (MB), from
   * /proc; NaN when gone or not Linux.
   */
  cpuAndRss() {
    const pid = this.pid();
    try {
      // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cpuMs = ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      return { cpuMs, rssMb: Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) / 1024 };
    } catch {
      return { cpuMs: Number.NaN, rssMb: Number.NaN };
    }
  }

  /** The file-system watches the daemon holds (inotify's, from /proc); NaN when gone or not Linux. */
  fileWatches() {
    const pid = this.pid();
    try {
      let watches = 0;
      for (const fd of readdirSync(`/proc/${pid}/fdinfo`)) {
        const info = readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8');
        for (const line of info.split('\n')) if (line.startsWith('inotify wd:')) watches++;
      }
      return watches;
    } catch {
      return Number.NaN;
    }
  }

  /** Starts the peak over from the daemon's memory now, so that the next usage() is one phase's. */
  resetPeak() {
    try {
      writeFileSync(`/proc/${this.pid()}/clear_refs`, '5');
    } catch {
      // Not Linux, or gone: the peak stays the run's.
    }
  }

  /** SIGTERM to the daemon (it closes its index), SIGKILL to the group if it has not exited in time. */
  async stop(timeoutMs = 20_000) {
    if (!live.has(this)) return this.exited;
    const pid = this.pid();
    try {
      process.kill(pid ?? -this.child.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
    const timer = setTimeout(() => this.kill(), timeoutMs);
    const result = await this.exited;
    clearTimeout(timer);
    return result;
  }

  kill() {
    try {
      process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}
