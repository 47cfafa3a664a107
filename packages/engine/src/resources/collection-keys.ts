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

/** Where a page starts: after `offset` items, or (keyset) after the key `after` in key order. */
export type PageWindow = { offset: number } | { after: string };

/** A page of a collection's records, and what its `pagination` says. */
export interface KeyPage<R> {
  records: R[];
  /** Every item under the prefix, wherever the page starts. */
  total: number;
  /** Whether items follow the page. */
  hasMore: boolean;
  /** Where the page ends in key order (the next page by cursor starts after it); `undefined` when it is empty. */
  lastKey: string | undefined;
  /** How many listing positions the page covers: the next page by offset starts at `offset + covered`. */
  covered: number;
}

/**
 * A page's accounting. An offset page has more when its window ends before `total`; a keyset page (its `total`
 * counts the keys before it too) when the listing held a key beyond the page (`beyond`).
 */
function finish<R>(
  window: PageWindow,
  records: R[],
  total: number,
  covered: number,
  lastKey: string | undefined,
  beyond: boolean,
): KeyPage<R> {
  const hasMore = "after" in window ? beyond : window.offset + covered < total;
  return { records, total, hasMore, lastKey, covered };
}

/** How many of `records` (in key order) have a key at or before `key`: the index of the first one after it. */
function keysUpTo(records: readonly { key: string }[], key: string): number {
  let low = 0;
  let high = records.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (records[middle]!.key <= key) low = middle + 1;
    else high = middle;
  }
  return low;
}

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

  /**
   * Live records under a full-key prefix, in key order, and how many there are, listed by `list`: the window from an
   * `offset`, or (keyset) the keys `after` one, each at most `limit` long.
   */
  async page<R extends { key: string }>(
    list: Lister<R>,
    prefix: string | undefined,
    window: PageWindow,
    limit: number | undefined,
  ): Promise<KeyPage<R>> {
    const pattern = this.def.compiledPattern;
    const listPrefix = pattern.listPrefix(prefix);
    if (this.oneLevel) return this.leafPage(list, listPrefix, window, limit);
    if (pattern.kind === "deep" && pattern.literalPrefix !== "") {
      // One more key than the page tells a keyset page whether more follow; an offset page has its total for that.
      const extra = "after" in window && limit !== undefined ? 1 : 0;
      const page = await list(this.address, {
        prefix: listPrefix,
        ...window,
        ...(limit === undefined ? {} : { limit: limit + extra }),
      });
      // Keys under the prefix the pattern does not match (an empty segment) hold a position but are no item.
      const scanned = limit === undefined ? page.items : page.items.slice(0, limit);
      return finish(
        window,
        scanned.filter((r) => pattern.matches(r.key)),
        page.total,
        scanned.length,
        scanned.at(-1)?.key,
        page.items.length > scanned.length,
      );
    }
    const all = (await list(this.address, { prefix: listPrefix })).items.filter((r) =>
      pattern.matches(r.key),
    );
    const from = "after" in window ? keysUpTo(all, window.after) : window.offset;
    const records = all.slice(from, limit === undefined ? undefined : from + limit);
    return finish(
      window,
      records,
      all.length,
      records.length,
      records.at(-1)?.key,
      from + records.length < all.length,
    );
  }

  /**
   * A page of a one-level collection from the store's `leaf` listing. The only key of that listing that is not an
   * item is the literal prefix itself (`items/`: an empty segment, e.g. a single resource stored there), listed only
   * for exactly that prefix and first in key order when present. The page asks for one record more, so it is whole
   * with or without that key in front (and a keyset page knows whether more follow); from offset 0 the page shows
   * whether the key is there, from further on (and by cursor: every key after another under the prefix comes after
   * the prefix itself) one point read beside the page does.
   */
  private async leafPage<R extends { key: string }>(
    listPage: Lister<R>,
    listPrefix: string,
    window: PageWindow,
    limit: number | undefined,
  ): Promise<KeyPage<R>> {
    const literalPrefix = this.def.compiledPattern.literalPrefix;
    // A prefix with a "/" past the literal prefix reaches below the items: nothing there matches.
    if (listPrefix.includes("/", literalPrefix.length)) return finish(window, [], 0, 0, undefined, false);
    const list = (extra: number) =>
      listPage(this.address, {
        prefix: listPrefix,
        leaf: true,
        ...window,
        ...(limit === undefined ? {} : { limit: limit + extra }),
      });
    const keyset = "after" in window;
    const [{ items, total }, folderListed, folderCounted] =
      listPrefix !== literalPrefix
        ? await list(keyset ? 1 : 0).then((page) => [page, false, false] as const)
        : !keyset && window.offset === 0
          ? await list(1).then((page) => {
              const listed = page.items[0]?.key === listPrefix;
              return [page, listed, listed] as const;
            })
          : await Promise.all([
              list(1),
              this.store.getState(this.address, listPrefix).then((record) => record !== null),
            ]).then(([page, folder]) => [page, folder && !keyset, folder] as const);
    // With the prefix key at leaf position 0, item i sits at position i + 1: the first record listed is the prefix
    // key (offset 0) or the item before the page. A keyset page starts after a key beyond the prefix: never there.
    const listed = folderListed ? items.slice(1) : items;
    const records = limit === undefined ? listed : listed.slice(0, limit);
    return finish(
      window,
      records,
      folderCounted ? Math.max(0, total - 1) : total,
      records.length,
      records.at(-1)?.key,
      listed.length > records.length,
    );
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
    return (
      await this.page(
        (address, options) => this.store.list(address, options),
        undefined,
        { offset: 0 },
        undefined,
      )
    ).total;
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
