// What both stores check and keep of people and workstations: names, roles, visibilities and
// tokens. A token is 32 random bytes, shown once; the store keeps its SHA-256 digest only, which is
// enough for a secret that long (nothing to guess, so no slow hash is needed) and lets a token be
// found by an index on the digest.
import { createHash, randomBytes } from 'node:crypto';
import {
  ROLES,
  type Role,
  type UserRecord,
  VISIBILITIES,
  type Visibility,
  type WorkstationRecord,
} from './server-store.js';

const NAME = /^[\w.-]{1,64}$/;

export const newToken = (): string => randomBytes(32).toString('base64url');

export const tokenDigest = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

/** The names of users and workstations: what a file name, a URL and a log line all take as is. */
export function checkName(kind: 'user' | 'workstation', name: string): void {
  if (!NAME.test(name))
    throw new TypeError(
      `not a ${kind} name: ${JSON.stringify(name)} (letters, digits, . _ - only; at most 64)`,
    );
}

export interface UserDb {
  name: string;
  role: Role;
  created_at: number;
}
export interface WorkstationDb {
  name: string;
  owner: string;
  visibility: Visibility;
  created_at: number;
}

export const toUser = (r: UserDb): UserRecord => ({ name: r.name, role: r.role, createdAt: r.created_at });
export const toWorkstation = (r: WorkstationDb): WorkstationRecord => ({
  name: r.name,
  owner: r.owner,
  visibility: r.visibility,
  createdAt: r.created_at,
});

export function checkRole(role: string): void {
  if (!ROLES.includes(role as Role))
    throw new TypeError(`not a role: ${JSON.stringify(role)} (admin or member)`);
}
export function checkVisibility(visibility: string): void {
  if (!VISIBILITIES.includes(visibility as Visibility))
    throw new TypeError(`not a visibility: ${JSON.stringify(visibility)} (private or shared)`);
}
