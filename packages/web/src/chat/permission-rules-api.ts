// The settings page's side of `/api/permission-rules`: the rules remembered per project (and
// config.json's), and revoking one. A failure is a value carrying the server's own words.
import type { PermissionRulesReply } from '@cairn/protocol';
import { authorizedFetch } from '../rpc.js';
import type { Answer } from './api.js';

async function ask<T>(path: string, init: RequestInit = {}): Promise<Answer<T>> {
  let res: Response;
  try {
    res = await authorizedFetch(path, init);
  } catch {
    return { ok: false, error: 'the cairn server could not be reached' };
  }
  const json = (await res.json().catch(() => undefined)) as { error?: unknown } | undefined;
  if (!res.ok)
    return {
      ok: false,
      error: typeof json?.error === 'string' ? json.error : `the server answered ${res.status}`,
    };
  if (typeof json !== 'object' || json === null) return { ok: false, error: 'the server sent no JSON' };
  return { ok: true, value: json as T };
}

export const listPermissionRules = (): Promise<Answer<PermissionRulesReply>> =>
  ask<PermissionRulesReply>('api/permission-rules');

export const revokePermissionRule = (id: string): Promise<Answer<unknown>> =>
  ask(`api/permission-rules?id=${encodeURIComponent(id)}`, { method: 'DELETE' });
