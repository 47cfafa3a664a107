import { randomBytes } from "node:crypto";
import type { ActiveRequestEntry, RequestEvent, SessionRecord } from "@flowrt/core";
import { AppendLog, readJsonLines } from "./append-log.js";
import type { FsContext } from "./fs-context.js";

/**
 * What a request write carries beside its record, written before the record so that a crash between the parts
 * is finished on the next start: the record's rename is the commit (see {@link EffectsJournal}).
 */
export interface EffectsIntent {
  /** The request. */
  id: string;
  /** The version of the request record these effects go with. */
  v: number;
  /** The active entry to write (`null`: to remove); absent when the write does not touch the registry. */
  active?: ActiveRequestEntry | null;
  /** Events with their seqs, appended after the record. */
  events?: RequestEvent[];
  /** The request's own new session, written after the record (`requests.create(record, { session })`). */
  session?: SessionRecord;
}

type Line = ({ i: string } & EffectsIntent) | { c: string };

/** Lines beyond which a journal with no open write is emptied. */
const COMPACT_AFTER = 1000;

/**
 * `effects.log`: the intents of request writes that span several files (a record with its active entry, events or
 * new session). A write appends and fsyncs its intent, renames the record (the commit), writes the other parts,
 * then appends a done line (not fsynced). On start, {@link unsettled} names the intents without a done line;
 * the store finishes those whose record was written ({@link EffectsIntent.v}) and drops the others (their write
 * was never acknowledged), then {@link clear}s the file. So the record and its parts survive a crash as one unit.
 */
export class EffectsJournal {
  private readonly log: AppendLog;
  private readonly prefix = randomBytes(4).toString("hex");
  private counter = 0;
  /** The intents begun and not ended, by id, as written. */
  private readonly open = new Map<string, string>();
  private lines = 0;

  constructor(private readonly ctx: FsContext) {
    this.log = new AppendLog(ctx, ctx.resolve("effects.log"));
  }

  /** Appends `intent` and resolves, once it is on disk, with the id {@link end} takes. */
  async begin(intent: EffectsIntent): Promise<string> {
    const tx = `${this.prefix}-${(this.counter++).toString(36)}`;
    const line = JSON.stringify({ i: tx, ...intent } satisfies Line);
    this.open.set(tx, line);
    this.lines++;
    try {
      await this.log.append(line, true);
    } catch (error) {
      this.open.delete(tx);
      throw error;
    }
    return tx;
  }

  /**
   * Marks `tx` done (every part written). Not fsynced: a done line lost in a crash only makes the next start
   * write the same parts again.
   */
  end(tx: string): void {
    this.open.delete(tx);
    this.lines++;
    this.log.append(JSON.stringify({ c: tx } satisfies Line), false).catch(() => {
      // Lost: the intent stays open on disk, and the next start settles it again (idempotently).
    });
    if (this.open.size === 0 && this.lines > COMPACT_AFTER) this.compact().catch(() => {});
  }

  /**
   * Rewrites the file with only the intents still open (none: the file goes), between appends. Removals call it,
   * so that no intent keeps the data of a removed request or session (its events, its session record) on disk.
   */
  async compact(): Promise<void> {
    this.lines = this.open.size;
    await this.log.exclusive(async () => {
      // An intent begun meanwhile may be written again after this; the next start settles it once either way.
      const open = [...this.open.values()];
      if (open.length === 0) await this.ctx.remove(this.log.file);
      else await this.ctx.writeAtomic(this.log.file, open.map((line) => `${line}\n`).join(""));
    });
  }

  /** The intents on disk without a done line, in the order they were written (read at start, before any write). */
  async unsettled(): Promise<EffectsIntent[]> {
    const lines = await readJsonLines<Line>(this.log.file, { repair: true });
    const done = new Set<string>();
    for (const line of lines) if ("c" in line) done.add(line.c);
    const out: EffectsIntent[] = [];
    for (const line of lines) {
      if (!("i" in line) || done.has(line.i)) continue;
      const { i: _tx, ...intent } = line;
      out.push(intent);
    }
    return out;
  }

  /** Removes the file once its intents are settled (at start). */
  async clear(): Promise<void> {
    await this.ctx.remove(this.log.file);
    this.log.reset();
  }

  async flush(): Promise<void> {
    await this.log.flush();
  }
}
