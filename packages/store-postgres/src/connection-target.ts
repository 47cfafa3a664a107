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
 * Resolved as `pg` resolves them (the connection string, else the pool's own settings, else `PGHOST`, `PGPORT`,
 * `PGDATABASE`, `PGUSER`, else `pg.defaults`), without making a client.
 */
export function connectionTarget(pool: { options?: pg.PoolConfig }): ConnectionTarget | undefined {
  const options = pool.options ?? {};
  let fromUrl: Partial<ConnectionTarget> = {};
  if (typeof options.connectionString === "string") {
    try {
      const url = new URL(options.connectionString);
      fromUrl = {
        ...(url.hostname ? { host: decodeURIComponent(url.hostname).replace(/^\[|\]$/g, "") } : {}),
        ...(url.port ? { port: Number(url.port) } : {}),
        ...(url.pathname.length > 1 ? { database: decodeURIComponent(url.pathname.slice(1)) } : {}),
        ...(url.username ? { user: decodeURIComponent(url.username) } : {}),
      };
      const socketHost = url.searchParams.get("host");
      if (socketHost) fromUrl.host = socketHost;
    } catch {
      return undefined;
    }
  }
  const env = process.env;
  const user = fromUrl.user ?? options.user ?? env.PGUSER ?? String(pg.defaults.user ?? "");
  return {
    host: fromUrl.host ?? options.host ?? env.PGHOST ?? String(pg.defaults.host ?? "localhost"),
    port: fromUrl.port ?? options.port ?? Number(env.PGPORT || pg.defaults.port || 5432),
    database: fromUrl.database ?? options.database ?? env.PGDATABASE ?? user,
    user,
  };
}

/** `127.0.0.1:5433, database "flowrt", user "flowrt"`: a unix socket path is named as such. */
export function describeTarget(target: ConnectionTarget): string {
  const where = target.host.startsWith("/")
    ? `the socket in ${target.host} (port ${target.port})`
    : `${target.host.includes(":") ? `[${target.host}]` : target.host}:${target.port}`;
  return `${where}, database "${target.database}", user "${target.user}"`;
}
