// The project part of a session's breadcrumb. Most agents record the folder a session ran in; Gemini
// CLI files a session under a hash of that folder and records no folder at all, so its crumb says so
// (with the hash, which is what tells its projects apart) instead of being left empty.
import type { SessionHead } from '@cairn/protocol';

export interface Crumb {
  readonly text: string;
  readonly title: string;
}

const GEMINI_PROJECT = /[\\/]\.gemini[\\/]tmp[\\/]([0-9a-f]{64})[\\/]/;

export function projectCrumb(head: Pick<SessionHead, 'cwd' | 'path'> | undefined): Crumb | undefined {
  if (!head) return undefined;
  if (head.cwd !== undefined && head.cwd !== '') return { text: head.cwd, title: head.cwd };
  const hash = GEMINI_PROJECT.exec(head.path)?.[1];
  if (hash !== undefined)
    return {
      text: `project ${hash.slice(0, 8)}…`,
      title: `Gemini CLI records no folder, only this hash of it: ${hash}`,
    };
  return { text: 'no project folder recorded', title: 'the session’s files name no folder' };
}
