// A workstation's machine, read and synced: the catalog of its own agents' sessions (with an index
// of its own, so that a `cairn serve` on the same machine keeps its file to itself) and the client
// that sends their heads and search documents to the server.
import { join } from 'node:path';
import { nodePlatform } from '@cairn/transcript';
import { IndexDb } from '../indexing/index-db.js';
import { IndexWorkers, indexWorkerFile } from '../indexing/index-workers.js';
import { Catalog } from '../reader/catalog.js';
import { SessionSync } from './sync-client.js';

export interface MachineSync {
  readonly sync: SessionSync;
  readonly catalog: Catalog;
  close(): Promise<void>;
}

export function startMachineSync(options: {
  readonly env: Record<string, string | undefined>;
  readonly cairnHome: string;
  readonly serverUrls: readonly string[];
  readonly ticket: string;
  readonly log: (line: string) => void;
  readonly homeDir?: string;
}): MachineSync {
  const { env, log } = options;
  const platform = nodePlatform(options.homeDir === undefined ? { env } : { env, homeDir: options.homeDir });
  const db = IndexDb.open(join(options.cairnHome, 'sync-index.sqlite'), log);
  const workerFile = indexWorkerFile();
  const workers = workerFile ? new IndexWorkers(workerFile, platform) : undefined;
  const catalog = new Catalog({ platform, db, log, ...(workers ? { workers } : {}) });
  const sync = new SessionSync({
    serverUrls: options.serverUrls,
    ticket: options.ticket,
    catalog,
    index: db,
    log,
  });
  catalog.start().catch((cause: unknown) => log(`sync: could not list this machine's sessions: ${cause}`));
  sync.start();
  return {
    sync,
    catalog,
    close: async () => {
      sync.close();
      catalog.close();
      await workers?.close();
      db.close();
    },
  };
}
