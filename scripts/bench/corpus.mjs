// The bench's corpus: the shared sessions replicated into a work folder until it reaches a size, every
// replica with its own ids, laid out as the agents' homes that `agentEnv` points at.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

export const files = (dir) =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? e.path, e.name));

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

const replicaTag = (n) => n.toString(16).padStart(8, '0');

/** The id a UUID takes in replica `n`. */
export const replicaId = (id, n) => replicaTag(n) + id.slice(8);

/** Replica `n` of a text: every UUID, message id and request id made unique to the replica. */
export function rewrite(text, n) {
  const tag = replicaTag(n);
  return text
    .replace(UUID, (id) => replicaId(id, n))
    .replaceAll('"msg_', `"msg_${tag}`)
    .replaceAll('"req_', `"req_${tag}`);
}

/** The environment that makes every agent's home, and cairn's, live inside `work`. */
export function agentEnv(work, base = process.env) {
  const home = join(work, 'home');
  return {
    ...base,
    HOME: home,
    CLAUDE_CONFIG_DIR: join(work, 'claude'),
    CODEX_HOME: join(work, 'codex'),
    GEMINI_CLI_HOME: home,
    CAIRN_HOME: join(work, 'cairn'),
  };
}

/** Writes replicas of the Claude Code, Codex and Gemini sessions of `source` into `work` until
 * `targetBytes` are written (at least `minReplicas` replicas). */
export function buildCorpus({ source, work, targetBytes, minReplicas = 1 }) {
  const home = join(work, 'home');
  const sources = ['claude', 'codex', 'gemini'].flatMap((agent) =>
    files(join(source, agent)).map((f) => ({ path: f, rel: relative(join(source, agent), f), agent })),
  );
  const texts = sources.map((s) => ({ ...s, text: readFileSync(s.path, 'utf8') }));
  let written = 0;
  let n = 0;
  while (written < targetBytes || n < minReplicas) {
    n++;
    for (const s of texts) {
      const agentRoot = s.agent === 'gemini' ? join(home, '.gemini') : join(work, s.agent);
      // Claude projects and Gemini project folders get a replica suffix; Codex day folders stay.
      const rel = rewrite(s.rel, n).replace(
        /^(projects|tmp)\/([^/]+)/,
        (_, top, dir) => `${top}/${dir}-r${n}`,
      );
      const out = join(agentRoot, rel);
      mkdirSync(dirname(out), { recursive: true });
      const data = rewrite(s.text, n);
      writeFileSync(out, data);
      written += Buffer.byteLength(data);
    }
  }
  return { replicas: n, bytes: written, files: n * texts.length };
}

/**
 * Writes replicas of the shared corpus's smaller sessions (a Claude Code, Codex or Gemini session
 * whose files, subagents included, hold at most `maxSessionBytes`) into `work` until there are
 * `sessions` of them: many sessions of the sizes people mostly have, rather than a few long ones.
 */
export function buildSessionCorpus({ source, work, sessions, maxSessionBytes }) {
  const home = join(work, 'home');
  const all = ['claude', 'codex', 'gemini'].flatMap((agent) =>
    files(join(source, agent)).map((f) => ({ path: f, rel: relative(join(source, agent), f), agent })),
  );
  // A session is a file outside a subagents folder; its subagents sit in a folder named after it.
  const groups = all
    .filter((f) => !f.rel.includes('/subagents/'))
    .map((main) => {
      const folder = main.rel.replace(/\.jsonl?$/, '/');
      const members = all.filter((f) => f.agent === main.agent && (f === main || f.rel.startsWith(folder)));
      return members.map((m) => ({ ...m, text: readFileSync(m.path, 'utf8') }));
    })
    .filter((g) => g.reduce((n, f) => n + Buffer.byteLength(f.text), 0) <= maxSessionBytes);
  if (groups.length === 0) throw new Error(`no session of ${source} holds at most ${maxSessionBytes} bytes`);
  let written = 0;
  let count = 0;
  for (let n = 1; count < sessions; n++) {
    for (const group of groups) {
      if (count === sessions) break;
      for (const s of group) {
        const agentRoot = s.agent === 'gemini' ? join(home, '.gemini') : join(work, s.agent);
        const rel = rewrite(s.rel, n).replace(
          /^(projects|tmp)\/([^/]+)/,
          (_, top, dir) => `${top}/${dir}-r${n}`,
        );
        const out = join(agentRoot, rel);
        mkdirSync(dirname(out), { recursive: true });
        const data = rewrite(s.text, n);
        writeFileSync(out, data);
        written += Buffer.byteLength(data);
      }
      count++;
    }
  }
  return { sessions: count, bytes: written, kinds: groups.length };
}
