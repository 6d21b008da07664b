// The bench's corpus for the agents read beside Claude Code, Codex and Gemini CLI: Qwen Code, pi,
// Copilot CLI (replicated files, each replica with its own ids, as `buildCorpus` does) and OpenCode
// and Kilo (one SQLite store each, holding every replica's rows under ids of its own), laid out in the
// homes that `moreAgentEnv` points at.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { build } from 'esbuild';
import { agentEnv, files, rewrite } from './corpus.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** `agentEnv` with the data folder (OpenCode's and Kilo's stores) inside `work` as well. */
export const moreAgentEnv = (work, base = process.env) => {
  const env = { ...agentEnv(work, base), XDG_DATA_HOME: join(work, 'home', '.local', 'share') };
  // These would move the homes out of `work`.
  for (const name of [
    'COPILOT_HOME',
    'QWEN_HOME',
    'QWEN_RUNTIME_DIR',
    'PI_CODING_AGENT_DIR',
    'PI_CODING_AGENT_SESSION_DIR',
  ])
    delete env[name];
  return env;
};

/** The OpenCode store's schema and its filling from a JSON tree, kept with the tests that use them. */
export async function storeSupport() {
  const out = join(root, 'node_modules/.cache/cairn-bench/opencode-store.mjs');
  await build({
    entryPoints: [join(root, 'packages/transcript/test/support/opencode-store.ts')],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    external: ['better-sqlite3'],
  });
  return import(out);
}

/** Writes `replicas` replicas of the file-based samples under `source/more` into the homes of `env`. */
function replicateFiles(source, env, replicas) {
  const more = join(source, 'more');
  const layouts = [
    // Qwen Code: <home>/projects/<project>/chats/<id>.jsonl
    ...files(join(more, 'qwen')).map((f) => ({
      text: readFileSync(f, 'utf8'),
      out: (n) =>
        join(
          env.HOME,
          '.qwen',
          'projects',
          `-tmp-bench-r${n}`,
          'chats',
          rewrite(relative(join(more, 'qwen'), f), n),
        ),
    })),
    // pi: <agent dir>/sessions/--<cwd>--/<time>_<id>.jsonl, the id from the sample's first line.
    ...files(join(more, 'pi')).map((f) => {
      const text = readFileSync(f, 'utf8');
      const id = JSON.parse(text.slice(0, text.indexOf('\n'))).id;
      return {
        text,
        out: (n) =>
          join(
            env.HOME,
            '.pi',
            'agent',
            'sessions',
            `--tmp-bench-r${n}--`,
            `2026-05-12T01-02-27-657Z_${rewrite(id, n)}.jsonl`,
          ),
      };
    }),
    // Copilot CLI: <home>/session-state/<id>/events.jsonl, the folder naming the session.
    ...files(join(more, 'copilot')).map((f) => {
      const rel = relative(join(more, 'copilot'), f);
      const name = rel.endsWith('/events.jsonl') ? rel.split('/').at(-2) : rel.replace(/\.jsonl$/, '');
      return {
        text: readFileSync(f, 'utf8'),
        out: (n) => join(env.HOME, '.copilot', 'session-state', `${rewrite(name, n)}-r${n}`, 'events.jsonl'),
      };
    }),
  ];
  let bytes = 0;
  for (let n = 1; n <= replicas; n++)
    for (const { text, out } of layouts) {
      const path = out(n);
      mkdirSync(dirname(path), { recursive: true });
      const data = rewrite(text, n);
      writeFileSync(path, data);
      bytes += Buffer.byteLength(data);
    }
  return { files: replicas * layouts.length, bytes };
}

/**
 * Fills `db` with `replicas` copies of the rows of a store made from the OpenCode JSON trees: every
 * session, message and part id (and every mention of one inside a row's JSON) gets the suffix `_r<n>`.
 * With `oneSession`, the copies of the messages and parts stay in the sessions they came from: a few
 * long sessions instead of many short ones.
 */
export async function buildReplicatedStore(db, trees, replicas, { oneSession = false } = {}) {
  const { buildStore } = await storeSupport();
  mkdirSync(dirname(db), { recursive: true });
  buildStore(db, trees);
  const conn = new Database(db);
  try {
    const take = (table) => conn.prepare(`SELECT * FROM ${table}`).all();
    const seed = { session: take('session'), message: take('message'), part: take('part') };
    const ids = [...seed.session, ...seed.message, ...seed.part].map((r) => r.id);
    const mention = new RegExp(
      `"(${ids.map((id) => id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})"`,
      'g',
    );
    const sessionIds = new Set(seed.session.map((r) => r.id));
    const idOf = (id, n) => (id === null || id === '' ? id : `${id}_r${n}`);
    const insert = Object.fromEntries(
      Object.entries(seed).map(([table, rows]) => {
        const cols = Object.keys(rows[0] ?? { id: 0 });
        return [
          table,
          conn.prepare(
            `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`,
          ),
        ];
      }),
    );
    conn.exec('DELETE FROM part; DELETE FROM message; DELETE FROM session;');
    conn.transaction(() => {
      for (let n = 1; n <= replicas; n++) {
        const sessionOf = (id) => (oneSession ? id : idOf(id, n));
        if (!oneSession || n === 1)
          for (const s of seed.session)
            insert.session.run({
              ...s,
              id: sessionOf(s.id),
              parent_id: sessionOf(s.parent_id),
              slug: `${s.slug}-r${n}`,
            });
        const mentioned = (id) => (oneSession && sessionIds.has(id) ? id : idOf(id, n));
        const data = (d) => d.replace(mention, (_, id) => `"${mentioned(id)}"`);
        for (const m of seed.message)
          insert.message.run({
            ...m,
            id: idOf(m.id, n),
            session_id: sessionOf(m.session_id),
            data: data(m.data),
          });
        for (const p of seed.part)
          insert.part.run({
            ...p,
            id: idOf(p.id, n),
            message_id: idOf(p.message_id, n),
            session_id: sessionOf(p.session_id),
            data: data(p.data),
          });
      }
    })();
    conn.pragma('wal_checkpoint(TRUNCATE)');
    return { sessions: seed.session.length * (oneSession ? 1 : replicas) };
  } finally {
    conn.close();
  }
}

/** Replicas of the Qwen Code, pi, Copilot CLI, OpenCode and Kilo samples of `source` in `work`. */
export async function buildMoreCorpus({ source, work, replicas }) {
  const env = moreAgentEnv(work);
  const written = replicateFiles(source, env, replicas);
  const trees = ['storage_v2', 'storage_legacy'].map((t) => join(source, 'more', 'opencode', t));
  const share = env.XDG_DATA_HOME;
  const opencode = await buildReplicatedStore(join(share, 'opencode', 'opencode.db'), trees, replicas);
  const kilo = await buildReplicatedStore(join(share, 'kilo', 'kilo.db'), trees.slice(0, 1), replicas);
  return { ...written, storeSessions: opencode.sessions + kilo.sessions };
}
