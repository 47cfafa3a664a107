import type { SessionStore } from "@flowrt/core";
import type { Queryable } from "./driver.js";
import { pageBounds, toSession } from "./rows.js";
import type { StoreSql } from "./sql.js";

export function createSessionStore(db: Queryable, sql: StoreSql["sessions"]): SessionStore {
  return {
    async create(session) {
      const { rows } = await db.query(sql.insert, [
        session.id,
        session.flowId,
        session.flowKind,
        session.userId,
        session.orgId ?? null,
        session.tenantId ?? null,
        session.parentSessionId ?? null,
        session.rootSessionId,
        session.title ?? null,
        JSON.stringify(session.metadata ?? {}),
        session.createdAt,
      ]);
      return rows.length === 1;
    },

    async get(id) {
      const { rows } = await db.query(sql.get, [id]);
      return rows[0] ? toSession(rows[0]) : null;
    },

    async list(query) {
      const filter = [query.userId ?? null, query.orgId ?? null, query.flowIds ?? null];
      const [page, count] = await Promise.all([
        db.query(sql.list, [...filter, ...pageBounds(query.offset, query.limit)]),
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
      const { rows } = await db.query(sql.update, [
        id,
        patch.title !== undefined,
        patch.title ?? null,
        patch.metadata === undefined ? null : JSON.stringify(patch.metadata),
      ]);
      return rows[0] ? toSession(rows[0]) : null;
    },
  };
}
