import type { ActiveRequestEntry } from "@flowrt/core";
import { compareStrings } from "./internal/compare-strings.js";
import { DocTable } from "./internal/doc-table.js";
import type { FsContext } from "./internal/fs-context.js";
import type { KeyedMutex } from "./internal/keyed-mutex.js";
import { LazyLoad } from "./internal/lazy-load.js";
import { assertJsonObject, assertNonEmptyString, assertString, jsonCopy } from "./internal/validate.js";

/**
 * The registry of running requests: one file per request under `active/`, mirrored in memory
 * (read once, on first use) because it is small and listed often.
 */
export class FsActiveRegistry {
  private readonly table: DocTable<ActiveRequestEntry>;
  private readonly entries = new LazyLoad(() =>
    this.table.scan().then((docs) => new Map(docs.map((doc) => [doc.id, doc.data]))),
  );

  constructor(
    private readonly ctx: FsContext,
    private readonly mutex: KeyedMutex,
  ) {
    this.table = new DocTable(ctx, "active");
  }

  async mark(entry: ActiveRequestEntry): Promise<void> {
    assertJsonObject(entry, "entry");
    assertNonEmptyString(entry.requestId, "entry.requestId");
    assertString(entry.userId, "entry.userId");
    const copy = jsonCopy(entry, "entry");
    const entries = await this.load();
    await this.mutex.run(`active:${copy.requestId}`, async () => {
      await this.table.write(copy.requestId, copy);
      entries.set(copy.requestId, copy);
    });
  }

  async clear(requestId: string): Promise<void> {
    assertString(requestId, "requestId");
    const entries = await this.load();
    await this.mutex.run(`active:${requestId}`, async () => {
      await this.table.remove(requestId);
      entries.delete(requestId);
    });
  }

  /**
   * At start, before any other use of the registry: writes an unfinished update's active change (`null` removes
   * the entry).
   */
  async restore(requestId: string, entry: ActiveRequestEntry | null): Promise<void> {
    if (entry === null) await this.table.remove(requestId);
    else await this.table.write(requestId, entry);
  }

  async list(filter: { userId?: string; flowIds?: string[] }): Promise<ActiveRequestEntry[]> {
    const entries = await this.load();
    const flows = filter.flowIds === undefined ? undefined : new Set(filter.flowIds);
    return [...entries.values()]
      .filter(
        (entry) =>
          (filter.userId === undefined || entry.userId === filter.userId) &&
          (flows === undefined || flows.has(entry.flowId)),
      )
      .sort((a, b) => compareStrings(a.startedAt, b.startedAt) || compareStrings(a.requestId, b.requestId))
      .map((entry) => structuredClone(entry));
  }

  private async load(): Promise<Map<string, ActiveRequestEntry>> {
    await this.ctx.ready();
    return this.entries.get();
  }
}
