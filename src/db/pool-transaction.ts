// A transaction on one connection of the node-postgres pool, for the statements run past Prisma on
// the plain driver (bulk writes, reads with settings of their own).
import type pg from 'pg';

/** Runs `work` on one connection in one transaction: committed when it resolves, rolled back when it throws. */
export async function inPoolTransaction<T>(pool: pg.Pool, work: (connection: pg.PoolClient) => Promise<T>): Promise<T> {
  const connection = await pool.connect();
  // A connection lost while checked out reports it here too (its statements fail as well); with
  // nobody listening, that event would end the process.
  let lost: Error | undefined;
  const onError = (err: Error) => void (lost ??= err);
  connection.on('error', onError);
  try {
    await connection.query('BEGIN');
    const result = await work(connection);
    await connection.query('COMMIT');
    return result;
  } catch (err) {
    await connection.query('ROLLBACK').catch((failed: Error) => void (lost ??= failed));
    throw err;
  } finally {
    connection.off('error', onError);
    // A connection that failed is closed rather than handed to the next caller.
    connection.release(lost);
  }
}
