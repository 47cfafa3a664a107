import type {
  CollectionDefinition,
  ListOptions,
  Page,
  ResourceStore,
  ScopeAddress,
  WriteCap,
} from "@flowrt/core";

/** A store listing: `list`, or `listText` for pages that pass the stored text on. */
export type Lister<R> = (address: ScopeAddress, options: ListOptions) => Promise<Page<R>>;

/** A compiled pattern never changes: whether it is one-level is worked out once. */
const oneLevelPatterns = new WeakMap<object, boolean>();

/**
 * Whether every key of the pattern is its literal prefix plus one segment (`items/*`, `a/b/[id]`, `*`): all
 * segments literal but the last, which is `*` or `[name]`. Such a collection's keys are the keys of a `leaf`
 * listing of its literal prefix, less the key equal to the prefix itself (an empty segment).
 */
function isOneLevel(pattern: CollectionDefinition<any>["compiledPattern"]): boolean {
  let oneLevel = oneLevelPatterns.get(pattern);
  if (oneLevel === undefined) {
    const { segments } = pattern;
    const last = segments.length - 1;
    oneLevel = segments.every((segment, i) =>
      i === last ? segment.type === "wildcard" || segment.type === "param" : segment.type === "literal",
    );
    oneLevelPatterns.set(pattern, oneLevel);
  }
  return oneLevel;
}

/**
 * Where a collection's keys sit in the store's key order, and so how its pages, counts and cap are asked of the
 * store:
 * - a one-level pattern (`items/*`, `a/[id]`, `*`) pages and counts with `leaf: true`, which leaves out deeper
 *   keys under the prefix (an `items/**` collection's, a single resource at `items/a/b`);
 * - a `**` pattern behind a literal prefix (`files/**`) pages and counts by plain prefix;
 * - any other pattern (a variable segment before the last, as in `[topic]/notes`, `a/[x]/b` or a leading `*`; or
 *   a bare `**`) may share its prefix with keys it does not match at any depth, so the whole prefix is read and
 *   filtered (the specification's "one unbounded scan").
 */
export class CollectionKeys {
  /** Whether pages and counts run in the store as `leaf` listings. */
  readonly oneLevel: boolean;

  constructor(
    private readonly store: ResourceStore,
    private readonly address: ScopeAddress,
    private readonly def: CollectionDefinition<any>,
  ) {
    this.oneLevel = isOneLevel(def.compiledPattern);
  }

  /** Live records under a full-key prefix, in key order, and how many there are, listed by `list`. */
  async page<R extends { key: string }>(
    list: Lister<R>,
    prefix: string | undefined,
    offset: number,
    limit: number | undefined,
  ): Promise<{ records: R[]; total: number }> {
    const pattern = this.def.compiledPattern;
    const listPrefix = pattern.listPrefix(prefix);
    if (this.oneLevel) return this.leafPage(list, listPrefix, offset, limit);
    if (pattern.kind === "deep" && pattern.literalPrefix !== "") {
      const page = await list(this.address, {
        prefix: listPrefix,
        offset,
        ...(limit === undefined ? {} : { limit }),
      });
      const records = page.items.filter((r) => pattern.matches(r.key));
      return { records, total: page.total };
    }
    const all = (await list(this.address, { prefix: listPrefix })).items.filter((r) =>
      pattern.matches(r.key),
    );
    return {
      records: all.slice(offset, limit === undefined ? undefined : offset + limit),
      total: all.length,
    };
  }

  /**
   * A page of a one-level collection from the store's `leaf` listing. The only key of that listing that is not an
   * item is the literal prefix itself (`items/`: an empty segment, e.g. a single resource stored there), listed only
   * for exactly that prefix and first in key order when present. The page asks for one record more, so it is whole
   * with or without that key in front; from offset 0 the page shows whether the key is there, from further on one
   * point read beside the page does.
   */
  private async leafPage<R extends { key: string }>(
    listPage: Lister<R>,
    listPrefix: string,
    offset: number,
    limit: number | undefined,
  ): Promise<{ records: R[]; total: number }> {
    const literalPrefix = this.def.compiledPattern.literalPrefix;
    // A prefix with a "/" past the literal prefix reaches below the items: nothing there matches.
    if (listPrefix.includes("/", literalPrefix.length)) return { records: [], total: 0 };
    const window = (extra: number) => (limit === undefined ? { offset } : { offset, limit: limit + extra });
    const list = (extra: number) =>
      listPage(this.address, { prefix: listPrefix, leaf: true, ...window(extra) });
    if (listPrefix !== literalPrefix) {
      const { items, total } = await list(0);
      return { records: items, total };
    }
    const [{ items, total }, folderListed] =
      offset === 0
        ? await list(1).then((page) => [page, page.items[0]?.key === listPrefix] as const)
        : await Promise.all([
            list(1),
            this.store.getState(this.address, listPrefix).then((record) => record !== null),
          ]);
    // With the prefix key at leaf position 0, item i sits at position i + 1: the first record listed is the prefix
    // key (offset 0) or the item before the page.
    const records = folderListed ? items.slice(1) : items;
    return {
      records: limit === undefined ? records : records.slice(0, limit),
      total: folderListed ? Math.max(0, total - 1) : total,
    };
  }

  /** How many items the collection holds, counted in the store wherever the pattern allows. */
  async count(): Promise<number> {
    const pattern = this.def.compiledPattern;
    if (this.oneLevel) {
      const [total, folder] = await Promise.all([
        this.store.count(this.address, pattern.literalPrefix, { leaf: true }),
        this.store.getState(this.address, pattern.literalPrefix),
      ]);
      return folder === null ? total : Math.max(0, total - 1);
    }
    if (pattern.kind === "deep" && pattern.literalPrefix !== "")
      return this.store.count(this.address, pattern.literalPrefix);
    return (await this.page((address, options) => this.store.list(address, options), undefined, 0, undefined))
      .total;
  }

  /**
   * The store-side cap of this collection's creates: its keys as its pages and counts find them, under its literal
   * prefix (`leaf` for a one-level pattern). Keys there that are not items (the key equal to a one-level prefix;
   * other resources' keys that a pattern with a variable segment before the last, or a bare `**`, shares its prefix
   * with) raise `max` by their number, read just before the write: only creates and deletes of those other keys
   * racing this create can shift the cap (see the README).
   */
  async cap(max: number): Promise<WriteCap> {
    const pattern = this.def.compiledPattern;
    const prefix = pattern.literalPrefix;
    if (this.oneLevel) {
      const folder = await this.store.getState(this.address, prefix);
      return { prefix, leaf: true, max: folder === null ? max : max + 1 };
    }
    if (pattern.kind === "deep" && prefix !== "") return { prefix, max };
    const { items, total } = await this.store.list(this.address, { prefix });
    return { prefix, max: max + total - items.filter((record) => pattern.matches(record.key)).length };
  }
}
