import type { JsonObject, Page, SessionListQuery, SessionRecord, SessionStore } from "@flowrt/core";
import { compareStrings } from "./internal/compare-strings.js";
import { DocTable } from "./internal/doc-table.js";
import type { FsContext } from "./internal/fs-context.js";
import type { KeyedMutex } from "./internal/keyed-mutex.js";
import { LazyLoad } from "./internal/lazy-load.js";
import { mapLimit } from "./internal/map-limit.js";
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
>;

/** Summaries of every session plus the lookups that list and listChildren use. */
class SessionIndex {
  readonly byId = new Map<string, Summary>();
  readonly byUser = new Map<string, Set<string>>();
  readonly byOrg = new Map<string, Set<string>>();
  readonly byParent = new Map<string, Set<string>>();

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
    };
    this.byId.set(record.id, summary);
    addTo(this.byUser, record.userId, record.id);
    if (record.orgId !== undefined) addTo(this.byOrg, record.orgId, record.id);
    if (record.parentSessionId !== undefined) addTo(this.byParent, record.parentSessionId, record.id);
  }

  remove(id: string): void {
    const summary = this.byId.get(id);
    if (summary === undefined) return;
    this.byId.delete(id);
    removeFrom(this.byUser, summary.userId, id);
    if (summary.orgId !== undefined) removeFrom(this.byOrg, summary.orgId, id);
    if (summary.parentSessionId !== undefined) removeFrom(this.byParent, summary.parentSessionId, id);
  }

  /** Summaries of the ids in `set` (or of every session when `set` is undefined). */
  pick(ids: Iterable<string> | undefined): Summary[] {
    if (ids === undefined) return [...this.byId.values()];
    const out: Summary[] = [];
    for (const id of ids) {
      const summary = this.byId.get(id);
      if (summary) out.push(summary);
    }
    return out;
  }
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
  ) {
    this.table = new DocTable(ctx, "sessions");
  }

  async create(session: SessionRecord): Promise<boolean> {
    assertJsonObject(session, "session");
    assertNonEmptyString(session.id, "session.id");
    assertString(session.userId, "session.userId");
    assertString(session.createdAt, "session.createdAt");
    const copy = jsonCopy(session, "session");
    await this.ctx.ready();
    return this.mutex.run(`session:${copy.id}`, async () => {
      if ((await this.table.read(copy.id)) !== null) return false;
      await this.table.write(copy.id, copy);
      const loaded = this.index.started();
      if (loaded) (await loaded).add(copy);
      return true;
    });
  }

  async get(id: string): Promise<SessionRecord | null> {
    assertString(id, "id");
    await this.ctx.ready();
    return this.table.read(id);
  }

  async list(query: SessionListQuery): Promise<Page<SessionRecord>> {
    assertCount(query.offset, "offset");
    assertCount(query.limit, "limit");
    const index = await this.loadIndex();
    const { userId, orgId, flowIds } = query;
    let candidates: Iterable<string> | undefined;
    if (userId !== undefined) candidates = index.byUser.get(userId) ?? [];
    else if (orgId !== undefined) candidates = index.byOrg.get(orgId) ?? [];
    const flows = flowIds === undefined ? undefined : new Set(flowIds);
    const matches = index
      .pick(candidates)
      .filter(
        (s) =>
          (userId === undefined || s.userId === userId) &&
          (orgId === undefined || s.orgId === orgId) &&
          (flows === undefined || (s.flowId !== null && flows.has(s.flowId))),
      )
      // Newest first; equal instants fall back to the id so that pages never overlap.
      .sort((a, b) => compareStrings(b.createdAt, a.createdAt) || compareStrings(b.id, a.id));
    const offset = query.offset ?? 0;
    const page = matches.slice(offset, query.limit === undefined ? undefined : offset + query.limit);
    return { items: await this.readAll(page), total: matches.length };
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

  async update(id: string, patch: { title?: string; metadata?: JsonObject }): Promise<SessionRecord | null> {
    assertString(id, "id");
    if (patch.title !== undefined) assertString(patch.title, "title");
    if (patch.metadata !== undefined) assertJsonObject(patch.metadata, "metadata");
    // Only the mutable fields are read from the patch; owner fields in it are ignored.
    const title = patch.title;
    const metadata = patch.metadata === undefined ? undefined : jsonCopy(patch.metadata, "metadata");
    await this.ctx.ready();
    return this.mutex.run(`session:${id}`, async () => {
      const current = await this.table.read(id);
      if (current === null) return null;
      const next: SessionRecord = { ...current };
      if (title !== undefined) next.title = title;
      if (metadata !== undefined) next.metadata = metadata;
      await this.table.write(id, next);
      return structuredClone(next);
    });
  }

  /** Removes a session (retention retires ephemeral ones; the contract has no delete). */
  async remove(id: string): Promise<void> {
    await this.ctx.ready();
    await this.mutex.run(`session:${id}`, async () => {
      await this.table.remove(id);
      const loaded = this.index.started();
      if (loaded) (await loaded).remove(id);
    });
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
