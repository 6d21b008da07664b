// Expected failures are values; only defects throw.
import type { SourcePointer } from './model.js';

export type Result<T, E> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: E };

export const ok = <T>(value: T): Result<T, never> => ({ ok: true, value });
export const err = <E>(error: E): Result<never, E> => ({ ok: false, error });

export interface SessionNotFound {
  readonly _tag: 'SessionNotFound';
  readonly path: string;
  readonly message: string;
}

export interface ReadFailed {
  readonly _tag: 'ReadFailed';
  readonly file: string;
  readonly message: string;
}

/** A file written in a format generation the adapter does not know. */
export interface UnknownFormatGeneration {
  readonly _tag: 'UnknownFormatGeneration';
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

/** The named agent has no adapter. */
export interface CapabilityUnsupported {
  readonly _tag: 'CapabilityUnsupported';
  readonly agent: string;
  readonly message: string;
}

/** No adapter's detect accepted the path. */
export interface NoAdapterAccepted {
  readonly _tag: 'NoAdapterAccepted';
  readonly path: string;
  readonly message: string;
}

/** The bytes under a source pointer are no longer the record it was made for. */
export interface SourceChanged {
  readonly _tag: 'SourceChanged';
  readonly pointer: SourcePointer;
  readonly message: string;
}

export type SessionReadError = SessionNotFound | UnknownFormatGeneration | ReadFailed;
export type LoadTranscriptError = SessionReadError | NoAdapterAccepted | CapabilityUnsupported;

export const sessionNotFound = (path: string): SessionNotFound => ({
  _tag: 'SessionNotFound',
  path,
  message: `no session at ${path}`,
});

export const readFailed = (file: string, cause: unknown): ReadFailed => ({
  _tag: 'ReadFailed',
  file,
  message: `cannot read ${file}: ${cause instanceof Error ? cause.message : String(cause)}`,
});

export const unknownFormatGeneration = (
  file: string,
  line: number,
  detail: string,
): UnknownFormatGeneration => ({
  _tag: 'UnknownFormatGeneration',
  file,
  line,
  message: `${file}:${line}: unknown format generation: ${detail}`,
});
