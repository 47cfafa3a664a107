import { randomBytes } from "node:crypto";
import {
  access,
  constants,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  unlink,
} from "node:fs/promises";
import path from "node:path";
import { FlowError } from "@flowrt/core";

/** Bumped when the on-disk layout changes incompatibly. */
export const LAYOUT_FORMAT = 1;
const MARKER_FILE = "flowrt-store.json";
/** A temp file of a live process is left alone unless it is older than this (a reused pid). */
const STALE_TEMP_MS = 60 * 60 * 1000;

/**
 * Shared file-system plumbing of one store instance: the root directory, atomic writes through a
 * private temp folder, directory fsyncs and the startup sweep. Every store method awaits `ready()`.
 */
export class FsContext {
  readonly root: string;
  readonly fsync: boolean;
  readonly tmpDir: string;
  private readonly instanceId = randomBytes(4).toString("hex");
  private tmpCounter = 0;
  private readonly knownDirs = new Set<string>();
  private readonly startup: Promise<void>;
  private closed = false;
  private recovery: (() => Promise<void>) | undefined;

  constructor(root: string, fsync: boolean) {
    this.root = path.resolve(root);
    this.fsync = fsync;
    this.tmpDir = path.join(this.root, "tmp");
    this.startup = this.init();
    // Surfaced by the first operation that awaits ready(); never an unhandled rejection.
    this.startup.catch(() => {});
  }

  /** Resolves once the directory is usable; throws when the store was closed or could not start. */
  async ready(): Promise<void> {
    if (this.closed) throw new FlowError("store-error", "The filesystem store is closed.");
    await this.startup;
  }

  /**
   * Answers once the store is open, started, and its folder still there, readable and writable (a volume
   * unmounted or made read-only under a running process fails here): the readiness probe's check.
   */
  async ping(): Promise<void> {
    await this.ready();
    try {
      await access(this.tmpDir, constants.R_OK | constants.W_OK);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      throw new FlowError(
        "store-error",
        `The filesystem store's folder ${this.root} is not usable (${String(code)}): check that it exists and this process may read and write it.`,
        { cause: error, retryable: true },
      );
    }
  }

  /**
   * Work the start does after the temp sweep and before `ready()` resolves: settling what a crash left unfinished
   * (see `EffectsJournal`). Set it right after constructing the context, before anything awaits: the start reads it
   * after its first I/O. The work must not await `ready()`.
   */
  recoverWith(task: () => Promise<void>): void {
    this.recovery = task;
  }

  markClosed(): void {
    this.closed = true;
  }

  /** Settles once start-up (folders, marker, temp sweep) has finished, whether or not it succeeded. */
  async started(): Promise<void> {
    await this.startup.catch(() => {});
  }

  /** Absolute path of a file or folder inside the store. */
  resolve(...parts: string[]): string {
    return path.join(this.root, ...parts);
  }

  private async init(): Promise<void> {
    await this.ensureDir(this.tmpDir);
    const markerPath = this.resolve(MARKER_FILE);
    const marker = await readJsonFile<{ format?: unknown }>(markerPath);
    if (marker === null) {
      await this.writeAtomic(markerPath, `${JSON.stringify({ format: LAYOUT_FORMAT })}\n`);
    } else if (marker.format !== LAYOUT_FORMAT) {
      throw new FlowError(
        "store-error",
        `The directory ${this.root} holds a flowrt store of format ${String(marker.format)}; this version reads format ${LAYOUT_FORMAT}.`,
      );
    }
    await this.sweepTemp();
    await this.recovery?.();
  }

  /**
   * Removes temp files that a crashed process left behind. A temp file is never read: its rename
   * did not happen, so the write it belonged to was never acknowledged. The same goes for a folder
   * moved here to be removed ({@link discardDir}) whose removal a crash cut short.
   */
  private async sweepTemp(): Promise<void> {
    const names = await readdir(this.tmpDir);
    const now = Date.now();
    for (const name of names) {
      const file = path.join(this.tmpDir, name);
      const pid = Number.parseInt(name.split("-")[0] ?? "", 10);
      let stale = !Number.isInteger(pid) || !processAlive(pid);
      if (!stale) {
        const info = await stat(file).catch(() => null);
        stale = info !== null && now - info.mtimeMs > STALE_TEMP_MS;
      }
      if (stale) await rm(file, { force: true, recursive: true });
    }
  }

  /** Creates a folder (and parents), fsyncing every parent whose entry list changed. */
  async ensureDir(dir: string): Promise<void> {
    if (this.knownDirs.has(dir)) return;
    const first = await mkdir(dir, { recursive: true });
    if (first !== undefined && this.fsync) {
      const stop = path.dirname(first);
      let current = dir;
      for (;;) {
        const parent = path.dirname(current);
        await fsyncDir(parent);
        if (parent === stop || parent === current) break;
        current = parent;
      }
    }
    this.knownDirs.add(dir);
  }

  /**
   * Writes `data` to `target` so that a crash at any moment leaves the old or the new content:
   * write a temp file, fsync it, rename it over the target, fsync the target's folder.
   */
  async writeAtomic(target: string, data: string): Promise<void> {
    const dir = path.dirname(target);
    await this.ensureDir(dir);
    const tmp = path.join(this.tmpDir, `${process.pid}-${this.instanceId}-${this.tmpCounter++}.tmp`);
    const handle = await open(tmp, "w");
    try {
      await handle.writeFile(data, "utf8");
      if (this.fsync) await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(tmp, target);
    } catch (error) {
      await rm(tmp, { force: true });
      throw error;
    }
    if (this.fsync) await fsyncDir(dir);
  }

  /**
   * Removes a folder and everything under it in one atomic step, if it exists: the folder is renamed into the
   * temp folder (from then on it is gone from where it was, whole), then removed from there. A crash after the
   * rename leaves it in the temp folder, which the next start sweeps. `inspect` runs on the moved folder before
   * it is removed (to count what it held). Returns whether the folder existed.
   */
  async discardDir(dir: string, inspect?: (moved: string) => Promise<void>): Promise<boolean> {
    this.forgetDirs(dir);
    const moved = path.join(this.tmpDir, `${process.pid}-${this.instanceId}-${this.tmpCounter++}.trash`);
    try {
      await rename(dir, moved);
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
    if (this.fsync) await fsyncDir(path.dirname(dir));
    await inspect?.(moved);
    await rm(moved, { recursive: true, force: true });
    return true;
  }

  /** Removes a file if it exists and makes the removal durable; returns whether it existed. */
  remove(file: string): Promise<boolean> {
    return this.removeDurably(file, () => unlink(file));
  }

  /** The folders at or under `dir` are gone (or will be): a later write there makes them again. */
  private forgetDirs(dir: string): void {
    const inside = dir + path.sep;
    for (const known of this.knownDirs)
      if (known === dir || known.startsWith(inside)) this.knownDirs.delete(known);
  }

  /** Runs `removal` of `target`; a target already missing is no error and needs no fsync. */
  private async removeDurably(target: string, removal: () => Promise<unknown>): Promise<boolean> {
    try {
      await removal();
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
    if (this.fsync) await fsyncDir(path.dirname(target));
    return true;
  }
}

/** Reads and parses a JSON file; `null` when it does not exist. */
export async function readJsonFile<T>(file: string): Promise<T | null> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
  try {
    return JSON.parse(text) as T;
  } catch (cause) {
    throw new FlowError("store-error", `The store file ${file} is not valid JSON.`, { cause });
  }
}

/** The names in a folder; none when it does not exist. */
export async function readdirOrEmpty(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
}

export async function fsyncDir(dir: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(dir, "r");
  } catch (error) {
    // Some platforms (Windows) cannot open a folder; their renames are durable without it.
    if (isErrno(error, "EISDIR") || isErrno(error, "EPERM") || isErrno(error, "EACCES")) return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    if (!isErrno(error, "EINVAL") && !isErrno(error, "EBADF")) throw error;
  } finally {
    await handle.close();
  }
}

export function isNotFound(error: unknown): boolean {
  return isErrno(error, "ENOENT");
}

function isErrno(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return isErrno(error, "EPERM");
  }
}
