// Connections to the team's PostgreSQL database, and the one way the store runs a transaction.
import pg from 'pg';

// BIGINT columns hold times in milliseconds and seqs, all far below 2^53: read them as numbers
// rather than node-postgres's default strings.
const int8AsNumber = (value: string): number => Number(value);
export const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8
      ? int8AsNumber
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * A pool of connections to `connectionString`. The client is node-postgres (`pg`): pure
 * JavaScript, so nothing to compile on install; a pool that suits a server answering many small
 * queries; LISTEN/NOTIFY on a connection of its own, which carries events between server
 * processes; and the most used PostgreSQL client for Node, so the best trodden.
 */
export function openPool(connectionString: string, maxConnections = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString, max: maxConnections, types: pgTypes });
  // An idle connection the database drops (a restart, a timeout) is reported here; the pool makes
  // a new one for the next query, so it is no reason to end the process.
  pool.on('error', () => {});
  return pool;
}

export type Queryable = pg.Pool | pg.PoolClient;

/** Runs `work` in one transaction on one connection: committed when it returns, rolled back when it throws. */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch (rollback) {
      broken = rollback as Error;
    }
    throw error;
  } finally {
    client.release(broken);
  }
}
