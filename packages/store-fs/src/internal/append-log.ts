import { access, open, readFile, truncate } from "node:fs/promises";
import path from "node:path";
import { FlowError } from "@flowrt/core";
import { type FsContext, fsyncDir, isNotFound } from "./fs-context.js";

type Entry =
  | {
      kind: "line";
      text: string;
      durable: boolean;
      onWritten: (() => void) | undefined;
      resolve: () => void;
      reject: (error: unknown) => void;
    }
  | {
      kind: "job";
      run: () => Promise<void>;
      /** A failure rejects every entry queued after the job and runs `onFailure`, as a failed write does. */
      failsQueue: boolean;
      resolve: () => void;
      reject: (error: unknown) => void;
    };

/**
 * An append-only JSON-lines file with group commit: lines queued while a write is in flight go
 * out together in one write and one fsync. Lines are written in queue order and each promise
 * resolves only once its line is on disk. `exclusive` runs a job (a compaction) between writes.
 * After an I/O failure every queued entry is rejected and `onFailure` runs, so the owner can
 * reload its state from the file before the next append.
 */
export class AppendLog {
  private readonly queue: Entry[] = [];
  private draining: Promise<void> | null = null;
  private fileKnown = false;

  constructor(
    private readonly ctx: FsContext,
    readonly file: string,
    private readonly onFailure: () => void = () => {},
  ) {}

  /**
   * Appends one line (without its newline). `durable: false` skips the fsync for this line.
   * `onWritten` runs once the line is on disk, synchronously and in append order (before the
   * returned promise settles), so callers can publish in log order.
   */
  append(line: string, durable = true, onWritten?: () => void): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ kind: "line", text: `${line}\n`, durable, onWritten, resolve, reject });
      this.kick();
    });
  }

  /** Runs `run` when no write is in flight; later appends wait for it. */
  exclusive(run: () => Promise<void>): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ kind: "job", run, failsQueue: false, resolve, reject });
      this.kick();
    });
  }

  /**
   * Runs `run` in the queue's order (after every line queued before it, before every line queued after it) and
   * lets it write lines itself, durably (`write` takes the lines without their newlines). For writes whose lines
   * must follow other work (a record written first): lines queued meanwhile wait. When `run` throws, it and every
   * entry queued after it are rejected and `onFailure` runs, as when a write fails.
   */
  transaction(run: (write: (lines: readonly string[]) => Promise<void>) => Promise<void>): Promise<void> {
    return new Promise((resolve, reject) => {
      const job = () =>
        run(async (lines) => {
          if (lines.length > 0) await this.write(lines.map((line) => `${line}\n`).join(""), true);
        });
      this.queue.push({ kind: "job", run: job, failsQueue: true, resolve, reject });
      this.kick();
    });
  }

  /** Resolves once everything queued so far is written. */
  async flush(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /** Forgets that the file exists (after it was removed or replaced). */
  reset(): void {
    this.fileKnown = false;
  }

  private kick(): void {
    if (this.draining) return;
    this.draining = this.drain().finally(() => {
      this.draining = null;
      // An entry queued after the drain's last check and before this ran found it still draining: drain it now.
      if (this.queue.length > 0) this.kick();
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      if (head.kind === "job") {
        this.queue.shift();
        try {
          await head.run();
          this.fileKnown = false;
          head.resolve();
        } catch (error) {
          this.fileKnown = false;
          if (head.failsQueue) {
            for (const entry of this.queue.splice(0)) entry.reject(error);
            this.onFailure();
          }
          head.reject(error);
        }
        continue;
      }
      const end = this.queue.findIndex((entry) => entry.kind === "job");
      const batch = this.queue.splice(0, end === -1 ? this.queue.length : end) as Extract<
        Entry,
        { kind: "line" }
      >[];
      try {
        await this.write(
          batch.map((entry) => entry.text).join(""),
          batch.some((entry) => entry.durable),
        );
      } catch (error) {
        // Later entries were prepared against state this failure made unreliable.
        const rest = this.queue.splice(0);
        for (const entry of [...batch, ...rest]) entry.reject(error);
        this.fileKnown = false;
        this.onFailure();
        continue;
      }
      for (const entry of batch) {
        try {
          entry.onWritten?.();
        } finally {
          entry.resolve();
        }
      }
    }
  }

  private async write(text: string, durable: boolean): Promise<void> {
    let created = false;
    if (!this.fileKnown) {
      await this.ctx.ensureDir(path.dirname(this.file));
      created = await access(this.file).then(
        () => false,
        () => true,
      );
    }
    const handle = await open(this.file, "a");
    try {
      const { size } = await handle.stat();
      try {
        await handle.writeFile(text, "utf8");
        if (durable && this.ctx.fsync) await handle.datasync();
      } catch (error) {
        // Cut a partly written batch off so the next append does not glue onto half a line.
        await handle.truncate(size).catch(() => {});
        throw error;
      }
    } finally {
      await handle.close();
    }
    if (created && this.ctx.fsync) await fsyncDir(path.dirname(this.file));
    this.fileKnown = true;
  }
}

/**
 * Reads a JSON-lines file written by {@link AppendLog}. A last line without its newline is a write
 * a crash cut short (never acknowledged): it is ignored, and with `repair` cut off the file so that
 * the next append starts on a clean line. Any other unreadable line is corruption and throws.
 */
export async function readJsonLines<T>(file: string, options: { repair: boolean }): Promise<T[]> {
  let buffer: Buffer;
  try {
    buffer = await readFile(file);
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
  const end = buffer.lastIndexOf(0x0a) + 1;
  if (end < buffer.length && options.repair) {
    await truncate(file, end);
    const handle = await open(file, "r+");
    try {
      await handle.datasync();
    } finally {
      await handle.close();
    }
  }
  const text = buffer.subarray(0, end).toString("utf8");
  const out: T[] = [];
  let lineNo = 0;
  for (const line of text.split("\n")) {
    lineNo++;
    if (line === "") continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value !== "object" || value === null || Array.isArray(value))
        throw new Error("not an object");
      out.push(value as T);
    } catch (cause) {
      throw new FlowError("store-error", `Line ${lineNo} of the store file ${file} is not a JSON object.`, {
        cause,
      });
    }
  }
  return out;
}
