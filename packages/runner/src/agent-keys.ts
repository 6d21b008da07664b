// API keys a person gave cairn for an agent: kept in cairn's own state (one owner-only file), and
// handed to the agent as the environment variable it reads, each time cairn starts it. Nothing is
// written into the agent's own folders, and a key never travels back out: only its variable's name.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_KEY_QUERY } from '@cairn/protocol';
import { OWNER_ONLY_FILE, ownerOnlyDir } from './owner-only.js';

export { API_KEY_QUERY };

/** The variable each built-in agent reads its API key from, for its API-key sign-in method. */
const KEY_VARIABLES: Readonly<Record<string, { readonly method: RegExp; readonly variable: string }>> = {
  'gemini-cli': { method: /^gemini-api-key$/, variable: 'GEMINI_API_KEY' },
  codex: { method: /^(api-key|openai-api-key|codex-api-key)$/, variable: 'CODEX_API_KEY' },
  'claude-code': { method: /api[-_]?key/i, variable: 'ANTHROPIC_API_KEY' },
  'qwen-code': { method: /api[-_]?key|openai/i, variable: 'OPENAI_API_KEY' },
};

/** Whether a sign-in method is one a key answers: by its kind, or by its name. */
export function isApiKeyMethod(method: { id: string; name?: string; type?: string | null }): boolean {
  if (method.type === 'env_var') return true;
  return /api[-_ ]?key/i.test(method.id) || /api[-_ ]?key/i.test(method.name ?? '');
}

/** The variable `bridge` reads the key of `methodId` from, or undefined when cairn does not know. */
export function apiKeyVariable(bridge: string, methodId: string): string | undefined {
  const known = KEY_VARIABLES[bridge];
  return known?.method.test(methodId) ? known.variable : undefined;
}

/** Per agent: the variables to add to its environment, and the method they answer, which is
 * named to the agent at each start (some agents read the variable only then). */
type StoredKeys = Record<string, { env?: Record<string, string>; method?: string }>;

const keysFile = (cairnHome: string): string => join(cairnHome, 'agent-keys.json');

function readKeys(cairnHome: string): StoredKeys {
  let text: string;
  try {
    text = readFileSync(keysFile(cairnHome), 'utf8');
  } catch {
    return {};
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as StoredKeys)
      : {};
  } catch {
    // A file cairn did not write whole: no keys rather than a failed start.
    return {};
  }
}

/** The variables kept for `bridge`, to add to its environment at start. */
export function storedAgentEnv(cairnHome: string, bridge: string): Record<string, string> {
  const env = readKeys(cairnHome)[bridge]?.env;
  if (env === undefined || typeof env !== 'object' || env === null) return {};
  return Object.fromEntries(Object.entries(env).filter(([, v]) => typeof v === 'string' && v !== ''));
}

/** The sign-in method a kept key answers, to name in `authenticate` at start; undefined when none. */
export function storedSignInMethod(cairnHome: string, bridge: string): string | undefined {
  const method = readKeys(cairnHome)[bridge]?.method;
  return typeof method === 'string' && method !== '' ? method : undefined;
}

export type StoreKeyResult = { ok: true; variable: string } | { ok: false; error: string };

/**
 * Keeps `key` for `bridge`'s API-key method `methodId`, under the variable the agent reads, in an
 * owner-only file of cairn's (written whole, then moved into place).
 */
export function storeAgentKey(
  cairnHome: string,
  bridge: string,
  methodId: string,
  key: string,
): StoreKeyResult {
  const variable = apiKeyVariable(bridge, methodId);
  if (variable === undefined)
    return {
      ok: false,
      error: `cairn does not know which variable ${bridge} reads the key of its ${methodId} method from; sign in with the agent's own command`,
    };
  const trimmed = key.trim();
  if (trimmed === '' || /\s/.test(trimmed))
    return { ok: false, error: 'an API key is one word, without spaces' };
  ownerOnlyDir(cairnHome);
  const keys = readKeys(cairnHome);
  keys[bridge] = { env: { ...(keys[bridge]?.env ?? {}), [variable]: trimmed }, method: methodId };
  const file = keysFile(cairnHome);
  const next = `${file}.${process.pid}.tmp`;
  writeFileSync(next, `${JSON.stringify(keys, null, 2)}\n`, { mode: OWNER_ONLY_FILE });
  renameSync(next, file);
  return { ok: true, variable };
}
