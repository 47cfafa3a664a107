import path from "node:path";
import { FlowError } from "@flowrt/core";
import { type FsContext, readdirOrEmpty, readJsonFile } from "./fs-context.js";
import { mapLimit } from "./map-limit.js";
import { fannedPath, nameOf } from "./naming.js";

/** How a record sits on disk: its id (checked on read) beside the data. */
interface Doc<T> {
  id: string;
  data: T;
}

/**
 * A folder of JSON records, one atomically written file per id, named by the hash of the id
 * (`<folder>/<2 hex>/<64 hex>.json`). Callers serialize writes of one id with a lock.
 */
export class DocTable<T> {
  private readonly dir: string;

  constructor(
    private readonly ctx: FsContext,
    folder: string,
  ) {
    this.dir = ctx.resolve(folder);
  }

  fileOf(id: string): string {
    return path.join(this.dir, fannedPath(nameOf(id), ".json"));
  }

  async read(id: string): Promise<T | null> {
    const doc = await readJsonFile<Doc<T>>(this.fileOf(id));
    if (doc === null) return null;
    if (doc.id !== id) {
      throw new FlowError(
        "store-error",
        `The store file ${this.fileOf(id)} holds another id than its name says.`,
      );
    }
    return doc.data;
  }

  write(id: string, data: T): Promise<void> {
    return this.ctx.writeAtomic(this.fileOf(id), JSON.stringify({ id, data } satisfies Doc<T>));
  }

  /** Removes the record of `id`; resolves whether there was one. */
  remove(id: string): Promise<boolean> {
    return this.ctx.remove(this.fileOf(id));
  }

  /** Reads every record of the table (used once, to build an in-memory summary). */
  async scan(): Promise<Array<Doc<T>>> {
    const files: string[] = [];
    for (const fan of await readdirOrEmpty(this.dir)) {
      if (!/^[0-9a-f]{2}$/.test(fan)) continue;
      const fanDir = path.join(this.dir, fan);
      for (const name of await readdirOrEmpty(fanDir)) {
        if (name.endsWith(".json")) files.push(path.join(fanDir, name));
      }
    }
    const docs = await mapLimit(files, 32, (file) => readJsonFile<Doc<T>>(file));
    return docs.filter((doc): doc is Doc<T> => doc !== null);
  }
}
