import {
  FlowError,
  type RequestRecord,
  type RequestStore,
  type SessionRecord,
  TERMINAL_REQUEST_STATUSES,
} from "@flowrt/core";
import type { PostgresDriver } from "./driver.js";
import type { EventHub } from "./event-hub.js";
import { checkFence, fenceParams } from "./fence.js";
import { requestParams, sessionParams, toActive, toEpochMs, toEvent, toJsonText, toRequest } from "./rows.js";
import type { StoreSql } from "./sql.js";

/** The events that end a request's log: `request.<status>` for each terminal status. */
const TERMINAL_EVENT_TYPES: ReadonlySet<string> = new Set(
  TERMINAL_REQUEST_STATUSES.map((status) => `request.${status}`),
);

/** Longest request id (in UTF-8 bytes) sent in a notification; PostgreSQL caps payloads near 8000 bytes. */
const MAX_NOTIFIED_ID_BYTES = 4000;

export function createRequestStore(
  db: PostgresDriver,
  sql: StoreSql["requests"],
  hub: EventHub,
  channel: string,
): RequestStore {
  const current = async (id: string): Promise<RequestRecord | null> => {
    const { rows } = await db.query(sql.get, [id]);
    return rows[0] ? toRequest(rows[0]) : null;
  };

  /** Events a write appended (`count` of them, the last `lastSeq`) delivered here without waiting for the notification. */
  const appended = (requestId: string, lastSeq: number, count: number, tick: number) => {
    for (let seq = lastSeq - count + 1; seq <= lastSeq; seq++) hub.appended(requestId, seq, tick);
  };

  const createWithSession = async (record: RequestRecord, session: SessionRecord): Promise<boolean> => {
    if (session.id !== record.sessionId)
      throw new FlowError(
        "invalid-request",
        "store-postgres: a request's own session has the request's sessionId.",
      );
    try {
      const { rows } = await db.query(sql.insertWithSession, [
        ...requestParams(record),
        ...sessionParams(session),
      ]);
      return rows.length === 1;
    } catch (error) {
      // The request id is taken: the statement failed whole, so the session was not created either.
      if ((error as { code?: unknown }).code === "23505") return false;
      throw error;
    }
  };

  return {
    async create(record, options) {
      const session = options?.session;
      if (session !== undefined) return createWithSession(record, session);
      const { rows } = await db.query(sql.insert, requestParams(record));
      return rows.length === 1;
    },

    get: current,

    async update(id, expectedVersion, patch, effects) {
      const claimGiven = patch.claim !== undefined;
      const events = effects?.events ?? [];
      const active = effects?.active;
      const tick = hub.beginAppend();
      const params: unknown[] = [
        id,
        expectedVersion,
        patch.status ?? null,
        patch.output !== undefined,
        toJsonText(patch.output),
        patch.error !== undefined,
        toJsonText(patch.error),
        patch.metadata === undefined ? null : JSON.stringify(patch.metadata),
        claimGiven,
        patch.claim?.hostId ?? null,
        patch.claim?.until ?? null,
        patch.startedAt ?? null,
        patch.completedAt ?? null,
        toEpochMs(patch.completedAt),
        patch.epoch ?? null,
      ];
      if (effects !== undefined) {
        if ((active != null && active.requestId !== id) || events.some((event) => event.requestId !== id))
          throw new FlowError(
            "invalid-request",
            `store-postgres: an update's active entry and events name its own request ("${id}").`,
          );
        params.push(
          active != null,
          active?.sessionId ?? null,
          active?.flowId ?? null,
          active?.userId ?? null,
          active?.orgId ?? null,
          active?.action ?? null,
          active?.startedAt ?? null,
          active === null,
          events.map((event) => event.type),
          events.map((event) => event.at),
          events.map((event) => JSON.stringify(event.data ?? {})),
          channel,
          Buffer.byteLength(id) <= MAX_NOTIFIED_ID_BYTES ? id : "",
        );
      }
      const { rows } = await db.query<{ version: unknown; last_seq: unknown }>(
        effects === undefined ? sql.update : sql.updateWithEffects,
        params,
      );
      if (rows[0]) {
        if (events.length > 0) appended(id, Number(rows[0].last_seq), events.length, tick);
        return { ok: true, version: Number(rows[0].version) };
      }
      const record = await current(id);
      return { ok: false, current: record ? { value: record, version: record.version } : null };
    },

    async listBySession(sessionId, options) {
      const limit = Number.isFinite(options.limit) ? Math.max(0, Math.floor(options.limit)) : null;
      const after = options.after;
      if (after === undefined) {
        const { rows } = await db.query(sql.listBySession, [sessionId, limit]);
        return rows.map(toRequest);
      }
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
      const { rows } = await db.query(sql.listBySessionAfter, [sessionId, limit, after.createdAt, after.id]);
      return rows.map(toRequest);
    },

    async removeByUser(userId, options) {
      const { rows } = await db.query<{ requests: unknown }>(sql.removeByUser, [
        userId,
        options?.orgId ?? null,
      ]);
      return Number(rows[0]?.requests ?? 0);
    },

    async listByStatus(statuses, options) {
      if (statuses.length === 0) return [];
      const { rows } = await db.query(sql.listByStatus, [
        statuses,
        options?.durableOnly === true,
        options?.limit === undefined ? null : Math.max(0, Math.floor(options.limit)),
      ]);
      return rows.map(toRequest);
    },

    async appendEvent(event, fence) {
      const tick = hub.beginAppend();
      const notifiedId = Buffer.byteLength(event.requestId) <= MAX_NOTIFIED_ID_BYTES ? event.requestId : "";
      // The data as stored (JSON: `undefined` members dropped, `toJSON` applied), which the caller gets back too.
      const data = JSON.stringify(event.data ?? {});
      const params = [
        event.requestId,
        event.type,
        event.at,
        data,
        channel,
        notifiedId,
        TERMINAL_EVENT_TYPES.has(event.type),
      ];
      let row: { seq: unknown } | undefined;
      if (fence === undefined) {
        row = (await db.query<{ seq: unknown }>(sql.appendEvent, params)).rows[0];
      } else {
        const { rows } = await db.query<{ fence_epoch: unknown; seq: unknown }>(sql.appendEventFenced, [
          ...params,
          ...fenceParams(fence),
        ]);
        checkFence(fence, rows[0]?.fence_epoch);
        row = rows[0]?.seq === null ? undefined : rows[0];
      }
      if (row === undefined) {
        throw new FlowError(
          "request-finished",
          `Request "${event.requestId}" has finished; its log takes no "${event.type}" event after its terminal one.`,
        );
      }
      const seq = Number(row.seq);
      hub.appended(event.requestId, seq, tick);
      return {
        seq,
        type: event.type,
        requestId: event.requestId,
        at: event.at,
        data: JSON.parse(data),
      };
    },

    async readEvents(requestId, afterSeq = 0, limit) {
      const { rows } = await db.query(sql.readEvents, [
        requestId,
        afterSeq,
        limit === undefined ? null : Math.max(0, Math.floor(limit)),
      ]);
      return rows.map(toEvent);
    },

    subscribe: (requestId, listener) => hub.subscribe(requestId, listener),

    async markActive(entry) {
      await db.query(sql.markActive, [
        entry.requestId,
        entry.sessionId,
        entry.flowId,
        entry.userId,
        entry.orgId ?? null,
        entry.action,
        entry.startedAt,
      ]);
    },

    async clearActive(requestId) {
      await db.query(sql.clearActive, [requestId]);
    },

    async listActive(filter) {
      const { rows } = await db.query(sql.listActive, [filter.userId ?? null, filter.flowIds ?? null]);
      return rows.map(toActive);
    },

    async purgeFinished(policy) {
      const now = policy.now ?? Date.now();
      const cutoff = policy.maxAgeMs === undefined ? null : Math.floor(now - policy.maxAgeMs);
      const keep = policy.maxCount === undefined ? null : Math.max(0, Math.floor(policy.maxCount));
      if (cutoff === null && keep === null) return 0;
      // One transaction, one purge at a time per schema: the requests, then the ephemeral sessions they leave
      // empty with their data.
      return db.transaction(async (tx) => {
        await tx.query(sql.purgeLock);
        const { rows } = await tx.query<{ removed: unknown; sessions: string[] }>(sql.purge, [cutoff, keep]);
        const sessions = rows[0]?.sessions ?? [];
        if (sessions.length > 0) {
          const retired = await tx.query<{ id: string }>(sql.retireSessions, [sessions]);
          const ids = retired.rows.map((row) => row.id);
          if (ids.length > 0) for (const statement of sql.retireSessionData) await tx.query(statement, [ids]);
        }
        return Number(rows[0]?.removed ?? 0);
      });
    },
  };
}
