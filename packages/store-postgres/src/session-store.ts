import { FlowError, type SessionListPosition, type SessionPatch, type SessionStore } from "@flowrt/core";
import type { PostgresDriver } from "./driver.js";
import { pageBounds, sessionParams, toSession } from "./rows.js";
import type { StoreSql } from "./sql.js";

export function createSessionStore(db: PostgresDriver, sql: StoreSql["sessions"]): SessionStore {
  return {
    async create(session) {
      const { rows } = await db.query(sql.insert, sessionParams(session));
      return rows.length === 1;
    },

    async get(id) {
      const { rows } = await db.query(sql.get, [id]);
      return rows[0] ? toSession(rows[0]) : null;
    },

    async list(query) {
      const filter = [query.userId ?? null, query.orgId ?? null, query.flowIds ?? null];
      const bounds = pageBounds(query.offset, query.limit);
      const after = query.after === undefined ? undefined : checkPosition(query.after);
      const [page, count] = await Promise.all([
        after === undefined
          ? db.query(sql.list, [...filter, ...bounds])
          : db.query(sql.listAfter, [...filter, ...bounds, after.createdAt, after.id]),
        db.query<{ total: unknown }>(sql.count, filter),
      ]);
      return { items: page.rows.map(toSession), total: Number(count.rows[0]?.total ?? 0) };
    },

    async listChildren(parentSessionId, filter) {
      const { rows } = await db.query(sql.children, [
        parentSessionId,
        filter.userId,
        filter.orgId ?? null,
        filter.tenantId ?? null,
        filter.flowId !== undefined,
        filter.flowId ?? null,
      ]);
      return rows.map(toSession);
    },

    async update(id, patch) {
      const merge =
        patch.metadataPatch === undefined ? null : objectText(patch.metadataPatch, "metadataPatch");
      const params = [
        id,
        patch.title !== undefined,
        patch.title ?? null,
        patch.metadata === undefined ? null : objectText(patch.metadata, "metadata"),
        merge,
      ];
      try {
        const { rows } = await db.query(sql.update, params);
        return rows[0] ? toSession(rows[0]) : null;
      } catch (error) {
        throw merge === null ? error : unmergeable(error);
      }
    },

    async markDeleting(id) {
      const { rows } = await db.query<{ found: unknown }>(sql.markDeleting, [id]);
      return rows[0]?.found === true;
    },

    remove(id) {
      // One transaction: the record is locked first (a concurrent removal waits, then finds nothing), and
      // everything goes or nothing does.
      return db.transaction(async (tx) => {
        if ((await tx.query(sql.lockForRemoval, [id])).rows.length === 0) return null;
        const requests = await tx.query<{ requests: unknown; events: unknown }>(sql.removeRequests, [id]);
        const data = await tx.query<{ states: unknown; contents: unknown; resources: unknown }>(
          sql.removeScopeData,
          ["session", id],
        );
        await tx.query(sql.removeScopeCounts, ["session", id]);
        await tx.query(sql.removeRecord, [id]);
        return {
          requests: Number(requests.rows[0]?.requests ?? 0),
          events: Number(requests.rows[0]?.events ?? 0),
          states: Number(data.rows[0]?.states ?? 0),
          resources: Number(data.rows[0]?.resources ?? 0),
          contents: Number(data.rows[0]?.contents ?? 0),
        };
      });
    },
  };
}

/** A keyset position as the statements take it: both parts strings. */
function checkPosition(after: SessionListPosition): SessionListPosition {
  if (
    typeof after !== "object" ||
    after === null ||
    typeof after.createdAt !== "string" ||
    typeof after.id !== "string"
  )
    throw new FlowError(
      "invalid-request",
      "store-postgres: a listing position is { createdAt: string, id: string }.",
    );
  return after;
}

/** A metadata object's JSON text; anything but a JSON object is refused before a statement is sent. */
function objectText(value: SessionPatch["metadata"] | SessionPatch["metadataPatch"], what: string): string {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new FlowError("invalid-request", `store-postgres: a session's ${what} must be a JSON object.`);
  return JSON.stringify(value);
}

/**
 * PostgreSQL's JSON functions, which the merge runs on, cannot read a string holding `\u0000` or a lone surrogate
 * escape (22P05, 22P02), in the patch or in the stored metadata; `metadata` (a whole replacement) can still set it.
 */
function unmergeable(error: unknown): unknown {
  const code = (error as { code?: unknown; cause?: { code?: unknown } } | null)?.code;
  const cause =
    error instanceof FlowError ? (error.cause as { code?: unknown } | undefined)?.code : undefined;
  if (code === "22P02" || code === "22P05" || cause === "22P05") {
    return new FlowError(
      "invalid-request",
      "store-postgres: a metadata patch cannot be merged into metadata holding \\u0000 or a lone surrogate (in the patch or the stored object); replace the whole object with `metadata` instead.",
      { cause: error },
    );
  }
  return error;
}
