import type {
  JsonObject,
  JsonValue,
  Page,
  SessionListQuery,
  SessionPatch,
  SessionRecord,
  SessionRemoval,
  SessionStore,
} from "@flowrt/core";
import { compareStrings } from "./internal/compare-strings.js";
import { DocTable } from "./internal/doc-table.js";
import type { FsContext } from "./internal/fs-context.js";
import type { KeyedMutex } from "./internal/keyed-mutex.js";
import { LazyLoad } from "./internal/lazy-load.js";
import { mapLimit } from "./internal/map-limit.js";
import { NewestFirst } from "./internal/newest-first.js";
import {
  assertCount,
  assertJsonObject,
  assertNonEmptyString,
  assertString,
  jsonCopy,
} from "./internal/validate.js";

/** The owner fields of a session, kept in memory for listing (the full record stays on disk). */
type Summary = Pick<
  SessionRecord,
  "id" | "flowId" | "userId" | "orgId" | "tenantId" | "parentSessionId" | "createdAt"
> & {
  /** A removal has begun: left out of `list`. */
  deleting: boolean;
};

/** Summaries of every session plus the lookups that list and listChildren use. */
class SessionIndex {
  readonly byId = new Map<string, Summary>();
  /** Newest first, overall and per owner, so that a page (by offset or by keyset) starts with a binary search. */
  readonly all = new NewestFirst<Summary>();
  readonly byUser = new Map<string, NewestFirst<Summary>>();
  readonly byOrg = new Map<string, NewestFirst<Summary>>();
  readonly byParent = new Map<string, Set<string>>();
  /** How many sessions are marked deleting: while none is, an unfiltered total is an index's size. */
  deleting = 0;

  add(record: SessionRecord): void {
    if (this.byId.has(record.id)) return;
    const summary: Summary = {
      id: record.id,
      flowId: record.flowId,
      userId: record.userId,
      orgId: record.orgId,
      tenantId: record.tenantId,
      parentSessionId: record.parentSessionId,
      createdAt: record.createdAt,
      deleting: record.deleting === true,
    };
    this.byId.set(record.id, summary);
    this.all.set(summary);
    addOrdered(this.byUser, record.userId, summary);
    if (record.orgId !== undefined) addOrdered(this.byOrg, record.orgId, summary);
    if (record.parentSessionId !== undefined) addTo(this.byParent, record.parentSessionId, record.id);
    if (summary.deleting) this.deleting++;
  }

  markDeleting(id: string): void {
    const summary = this.byId.get(id);
    if (summary === undefined || summary.deleting) return;
    summary.deleting = true;
    this.deleting++;
  }

  remove(id: string): void {
    const summary = this.byId.get(id);
    if (summary === undefined) return;
    this.byId.delete(id);
    this.all.delete(summary);
    removeOrdered(this.byUser, summary.userId, summary);
    if (summary.orgId !== undefined) removeOrdered(this.byOrg, summary.orgId, summary);
    if (summary.parentSessionId !== undefined) removeFrom(this.byParent, summary.parentSessionId, id);
    if (summary.deleting) this.deleting--;
  }

  /** Summaries of the ids in `ids`. */
  pick(ids: Iterable<string>): Summary[] {
    const out: Summary[] = [];
    for (const id of ids) {
      const summary = this.byId.get(id);
      if (summary) out.push(summary);
    }
    return out;
  }
}

function addOrdered(map: Map<string, NewestFirst<Summary>>, key: string, summary: Summary): void {
  let ordered = map.get(key);
  if (!ordered) map.set(key, (ordered = new NewestFirst()));
  ordered.set(summary);
}

function removeOrdered(map: Map<string, NewestFirst<Summary>>, key: string, summary: Summary): void {
  const ordered = map.get(key);
  if (ordered === undefined) return;
  ordered.delete(summary);
  if (ordered.size === 0) map.delete(key);
}

function addTo(map: Map<string, Set<string>>, key: string, id: string): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(id);
}

function removeFrom(map: Map<string, Set<string>>, key: string, id: string): void {
  const set = map.get(key);
  if (set === undefined) return;
  set.delete(id);
  if (set.size === 0) map.delete(key);
}

/** `base` with `patch` merged one level deep: a key set to `null` goes; a `__proto__` key is a plain key. */
function mergeMetadata(base: JsonObject, patch: { [key: string]: JsonValue | null }): JsonObject {
  const merged: JsonObject = {};
  const set = (key: string, value: JsonValue) =>
    Object.defineProperty(merged, key, { value, enumerable: true, writable: true, configurable: true });
  for (const key of Object.keys(base)) set(key, base[key]!);
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === null) delete merged[key];
    else if (value !== undefined) set(key, value);
  }
  return merged;
}

/** A session record checked as `create` checks it, and copied (JSON semantics). */
export function checkedSession(session: SessionRecord): SessionRecord {
  assertJsonObject(session, "session");
  assertNonEmptyString(session.id, "session.id");
  assertString(session.userId, "session.userId");
  assertString(session.createdAt, "session.createdAt");
  return jsonCopy(session, "session");
}

/**
 * Removes what is stored under a session in the other stores (its requests with their events and active entries,
 * its session-scope state, resources and content in every bucket) and counts it. Every part goes in atomic steps
 * and the record is removed after it, so a removal cut short is finished by a second call.
 */
export type RemoveSessionParts = (sessionId: string) => Promise<SessionRemoval>;

/**
 * Sessions, one file per id under `sessions/`. Listing uses in-memory summaries built by reading
 * the folder once, on the first list call of this instance; pages then read only their records.
 */
export class FsSessionStore implements SessionStore {
  private readonly table: DocTable<SessionRecord>;
  private readonly index = new LazyLoad(async () => {
    const index = new SessionIndex();
    for (const doc of await this.table.scan()) index.add(doc.data);
    return index;
  });

  constructor(
    private readonly ctx: FsContext,
    private readonly mutex: KeyedMutex,
    private readonly removeParts: RemoveSessionParts = async () => ({
      requests: 0,
      events: 0,
      states: 0,
      resources: 0,
      contents: 0,
    }),
  ) {
    this.table = new DocTable(ctx, "sessions");
  }

  async create(session: SessionRecord): Promise<boolean> {
    const copy = checkedSession(session);
    await this.ctx.ready();
    return this.mutex.run(`session:${copy.id}`, async () => {
      if ((await this.table.read(copy.id)) !== null) return false;
      await this.store(copy);
      return true;
    });
  }

  /** Writes a new session's record and lists it. Under the session's lock. */
  private async store(session: SessionRecord): Promise<void> {
    await this.table.write(session.id, session);
    const loaded = this.index.started();
    if (loaded) (await loaded).add(session);
  }

  /**
   * Runs `create` under the lock of `session`'s id when no session has it, else answers false: `create` writes
   * what comes with the session (a request, `requests.create(record, { session })`) and calls `store` to write the
   * session itself, as {@link create} would. Resolves what `create` resolves. `session` is checked and copied
   * ({@link checkedSession}).
   */
  async createWith(
    session: SessionRecord,
    create: (store: () => Promise<void>) => Promise<boolean>,
  ): Promise<boolean> {
    await this.ctx.ready();
    return this.mutex.run(`session:${session.id}`, async () => {
      if ((await this.table.read(session.id)) !== null) return false;
      return create(() => this.store(session));
    });
  }

  /** At start, before any other use of the store: writes a session an unfinished request create left out. */
  async restore(session: SessionRecord): Promise<void> {
    if ((await this.table.read(session.id)) === null) await this.table.write(session.id, session);
  }

  async get(id: string): Promise<SessionRecord | null> {
    assertString(id, "id");
    await this.ctx.ready();
    return this.table.read(id);
  }

  async list(query: SessionListQuery): Promise<Page<SessionRecord>> {
    assertCount(query.offset, "offset");
    assertCount(query.limit, "limit");
    const after = query.after;
    if (after !== undefined) {
      assertJsonObject(after, "after");
      assertString(after.createdAt, "after.createdAt");
      assertString(after.id, "after.id");
    }
    const index = await this.loadIndex();
    const { userId, orgId, flowIds } = query;
    const ordered =
      userId !== undefined
        ? index.byUser.get(userId)
        : orgId !== undefined
          ? index.byOrg.get(orgId)
          : index.all;
    if (ordered === undefined) return { items: [], total: 0 };
    const narrowsByOrg = userId !== undefined && orgId !== undefined;
    const flows = flowIds === undefined ? undefined : new Set(flowIds);
    const matches = (s: Summary) =>
      !s.deleting &&
      (!narrowsByOrg || s.orgId === orgId) &&
      (flows === undefined || (s.flowId !== null && flows.has(s.flowId)));

    let total = 0;
    if (!narrowsByOrg && flows === undefined && index.deleting === 0) total = ordered.size;
    else for (const s of ordered.from()) if (matches(s)) total++;

    // Newest first; equal instants fall back to the id, so pages never overlap.
    const offset = query.offset ?? 0;
    const limit = query.limit ?? Number.POSITIVE_INFINITY;
    const page: Summary[] = [];
    let skipped = 0;
    if (limit > 0) {
      for (const s of ordered.from(after)) {
        if (!matches(s)) continue;
        if (skipped < offset) skipped++;
        else if (page.push(s) >= limit) break;
      }
    }
    return { items: await this.readAll(page), total };
  }

  async listChildren(
    parentSessionId: string,
    filter: { userId: string; orgId?: string; tenantId?: string; flowId?: string | null },
  ): Promise<SessionRecord[]> {
    assertString(parentSessionId, "parentSessionId");
    const index = await this.loadIndex();
    const children = index
      .pick(index.byParent.get(parentSessionId) ?? [])
      .filter(
        (s) =>
          s.userId === filter.userId &&
          (filter.orgId === undefined || s.orgId === filter.orgId) &&
          (filter.tenantId === undefined || s.tenantId === filter.tenantId) &&
          (filter.flowId === undefined || s.flowId === filter.flowId),
      )
      .sort((a, b) => compareStrings(a.createdAt, b.createdAt) || compareStrings(a.id, b.id));
    return this.readAll(children);
  }

  async update(id: string, patch: SessionPatch): Promise<SessionRecord | null> {
    assertString(id, "id");
    assertJsonObject(patch, "patch");
    if (patch.title !== undefined && patch.title !== null) assertString(patch.title, "title");
    if (patch.metadata !== undefined) assertJsonObject(patch.metadata, "metadata");
    if (patch.metadataPatch !== undefined) assertJsonObject(patch.metadataPatch, "metadataPatch");
    // Only the mutable fields are read from the patch; owner fields in it are ignored.
    const title = patch.title;
    const metadata = patch.metadata === undefined ? undefined : jsonCopy(patch.metadata, "metadata");
    const metadataPatch =
      patch.metadataPatch === undefined ? undefined : jsonCopy(patch.metadataPatch, "metadataPatch");
    await this.ctx.ready();
    // Read, merged and written under the session's lock: concurrent patches of different keys all land.
    return this.mutex.run(`session:${id}`, async () => {
      const current = await this.table.read(id);
      if (current === null) return null;
      if (title === undefined && metadata === undefined && metadataPatch === undefined) return current;
      const next: SessionRecord = { ...current };
      if (title === null) delete next.title;
      else if (title !== undefined) next.title = title;
      if (metadata !== undefined) next.metadata = metadata;
      if (metadataPatch !== undefined) next.metadata = mergeMetadata(next.metadata, metadataPatch);
      await this.table.write(id, next);
      return structuredClone(next);
    });
  }

  async markDeleting(id: string): Promise<boolean> {
    assertString(id, "id");
    await this.ctx.ready();
    return this.mutex.run(`session:${id}`, () => this.mark(id).then((record) => record !== null));
  }

  /**
   * Marks the session deleting (when it is not yet), then removes everything under it, then the record. Runs
   * under the session's lock. A crash at any point leaves either no record or one marked `deleting` (never one
   * that reads as a live session with parts missing), and a second call finishes the removal; its counts are of
   * what it removed itself.
   */
  async remove(id: string): Promise<SessionRemoval | null> {
    assertString(id, "id");
    await this.ctx.ready();
    return this.mutex.run(`session:${id}`, async () => {
      if ((await this.mark(id)) === null) return null;
      const removed = await this.removeParts(id);
      await this.removeRecordUnlocked(id);
      return removed;
    });
  }

  /** Removes the record alone (retention, once an ephemeral session's data is gone). */
  async removeRecord(id: string): Promise<void> {
    await this.ctx.ready();
    await this.mutex.run(`session:${id}`, () => this.removeRecordUnlocked(id));
  }

  /** Writes `deleting: true` into the record unless it holds it; `null` when there is no record. Under the lock. */
  private async mark(id: string): Promise<SessionRecord | null> {
    const current = await this.table.read(id);
    if (current === null || current.deleting === true) return current;
    const next: SessionRecord = { ...current, deleting: true };
    await this.table.write(id, next);
    const loaded = this.index.started();
    if (loaded) (await loaded).markDeleting(id);
    return next;
  }

  private async removeRecordUnlocked(id: string): Promise<void> {
    await this.table.remove(id);
    const loaded = this.index.started();
    if (loaded) (await loaded).remove(id);
  }

  private async readAll(summaries: Summary[]): Promise<SessionRecord[]> {
    const records = await mapLimit(summaries, 32, (s) => this.table.read(s.id));
    return records.filter((record): record is SessionRecord => record !== null);
  }

  private async loadIndex(): Promise<SessionIndex> {
    await this.ctx.ready();
    return this.index.get();
  }
}
