import pg from "pg";
import type { PostgresDriver, PostgresListener, Queryable } from "./driver.js";

/** The part of a `pg.Pool` the driver uses; a `pg.Pool` satisfies it. */
export interface PgPoolLike extends Queryable {
  connect(): Promise<pg.PoolClient>;
  end(): Promise<void>;
}

/** Wraps a `pg` pool. `ownsPool` decides whether `close()` ends it. */
export function createPgDriver(pool: PgPoolLike, options: { ownsPool: boolean }): PostgresDriver {
  return {
    query: (text, params) => pool.query(text, params as unknown[] | undefined),

    async transaction(fn) {
      const client = await pool.connect();
      let failure: Error | undefined;
      try {
        await client.query("BEGIN");
        const result = await fn(client);
        await client.query("COMMIT");
        return result;
      } catch (error) {
        failure = error instanceof Error ? error : new Error(String(error));
        await client.query("ROLLBACK").catch(() => {
          // The connection is broken; releasing it with the error below discards it.
        });
        throw error;
      } finally {
        client.release(failure);
      }
    },

    async listen(channel, onNotify, onLost): Promise<PostgresListener> {
      const client = await pool.connect();
      let closed = false;
      const lost = (error: Error) => {
        if (closed) return;
        closed = true;
        client.removeListener("notification", onNotification);
        client.release(error);
        onLost(error);
      };
      const onNotification = (message: pg.Notification) => {
        if (message.channel === channel) onNotify(message.payload ?? "");
      };
      const onError = (error: Error) => lost(error);
      const onEnd = () => lost(new Error("The PostgreSQL listening connection ended."));
      client.on("notification", onNotification);
      client.on("error", onError);
      client.on("end", onEnd);
      try {
        await client.query(`LISTEN ${channel}`);
      } catch (error) {
        // When the connection broke, `lost` has already released it.
        if (!closed) {
          closed = true;
          client.removeListener("notification", onNotification);
          client.removeListener("end", onEnd);
          client.release(error instanceof Error ? error : true);
        }
        throw error;
      }
      return {
        async close() {
          if (closed) return;
          closed = true;
          client.removeListener("notification", onNotification);
          client.removeListener("end", onEnd);
          try {
            await client.query(`UNLISTEN ${channel}`);
            client.removeListener("error", onError);
            client.release();
          } catch (error) {
            client.release(error instanceof Error ? error : true);
          }
        },
      };
    },

    async close() {
      if (options.ownsPool) await pool.end();
    },
  };
}

/** Creates a pool from a connection string (the store then owns and ends it). */
export function createOwnedPool(
  connectionString: string,
  options: { max?: number; connectionTimeoutMs?: number } = {},
): pg.Pool {
  return new pg.Pool({
    connectionString,
    ...(options.max === undefined ? {} : { max: options.max }),
    // `pg` waits for a connection forever by default: a database that accepts TCP and never answers would
    // hang every request. 0 keeps that behaviour.
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 10_000,
  });
}
