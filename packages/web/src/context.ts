// What every view reaches: the connection and the session directory.
import { createContext } from 'preact';
import { useContext, useEffect, useReducer } from 'preact/hooks';
import type { Connection } from './rpc.js';
import type { Directory } from './sessions/directory.js';

export interface AppServices {
  readonly conn: Connection;
  readonly directory: Directory;
}

export const Services = createContext<AppServices | undefined>(undefined);

export function useServices(): AppServices {
  const services = useContext(Services);
  if (!services) throw new Error('useServices outside <Services.Provider>');
  return services;
}

export interface ChangeSource {
  onChange(listener: () => void): () => void;
}

/** Re-renders the caller whenever `source` reports a change. */
export function useChanges(source: ChangeSource | undefined): void {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  useEffect(() => source?.onChange(() => rerender(0)), [source]);
}
