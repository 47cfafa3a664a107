import pg from "pg";

/** Where a pool connects, as `pg` resolves it (the connection string, then `PGHOST`/`PGPORT`/… and its defaults). */
export interface ConnectionTarget {
  host: string;
  port: number;
  database: string;
  user: string;
}

/**
 * The host, port, database and user a `pg` pool connects with, never its password: what a connection error names.
 * Resolved by `pg` itself (a client made and never connected), so it is what was really tried.
 */
export function connectionTarget(pool: { options?: pg.PoolConfig }): ConnectionTarget | undefined {
  try {
    const client = new pg.Client(pool.options ?? {});
    return {
      host: String(client.host ?? "localhost"),
      port: Number(client.port ?? 5432),
      database: String(client.database ?? ""),
      user: String(client.user ?? ""),
    };
  } catch {
    return undefined;
  }
}

/** `127.0.0.1:5433, database "flowrt", user "flowrt"`: a unix socket path is named as such. */
export function describeTarget(target: ConnectionTarget): string {
  const where = target.host.startsWith("/")
    ? `the socket in ${target.host} (port ${target.port})`
    : `${target.host.includes(":") ? `[${target.host}]` : target.host}:${target.port}`;
  return `${where}, database "${target.database}", user "${target.user}"`;
}
