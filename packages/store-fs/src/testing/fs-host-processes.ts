/**
 * Starts flowrt hosts over a filesystem store (`fs-host-process.ts`) as child processes, sends them commands on
 * stdin and collects the JSON lines they print, and pauses, resumes and stops them with signals.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const SCRIPT = fileURLToPath(new URL("./fs-host-process.ts", import.meta.url));

/** A line a host printed, as parsed JSON (checked by the tests). */
export type HostLine = Record<string, any>;

export interface FsHostProcess {
  name: string;
  child: ChildProcess;
  /** Every line the host printed so far. */
  lines: HostLine[];
  /** Sends one command (a JSON line on stdin). */
  send(command: object): void;
  /** Resolves with the first line (printed so far or later) that `match` accepts. */
  waitFor(match: (line: HostLine) => boolean, timeoutMs?: number): Promise<HostLine>;
  /** SIGSTOP: the process freezes, as in a long GC pause or a frozen VM. */
  pause(): void;
  /** SIGCONT. */
  resume(): void;
  /** SIGTERM (the host closes), and waits for the process to exit. */
  stop(): Promise<void>;
}

export async function startFsHost(
  name: string,
  options: { dir: string; leaseMs: number; sleepMs: number },
): Promise<FsHostProcess> {
  const child = spawn(process.execPath, ["--conditions=@flowrt/source", "--import", "tsx", SCRIPT], {
    env: {
      ...process.env,
      FLOWRT_TEST_DIR: options.dir,
      FLOWRT_TEST_HOST: name,
      FLOWRT_TEST_LEASE_MS: String(options.leaseMs),
      FLOWRT_TEST_SLEEP_MS: String(options.sleepMs),
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const lines: HostLine[] = [];
  let stderr = "";
  const watchers = new Set<() => void>();
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout! }).on("line", (text) => {
    try {
      lines.push(JSON.parse(text));
    } catch {
      lines.push({ text });
    }
    for (const watcher of watchers) watcher();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  const waitFor = (match: (line: HostLine) => boolean, timeoutMs = 20_000) =>
    new Promise<HostLine>((resolve, reject) => {
      const check = () => {
        const found = lines.find(match);
        if (found === undefined) return false;
        finish();
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        finish();
        reject(
          new Error(
            `host ${name}: no such line within ${timeoutMs} ms.\n${JSON.stringify(lines)}\n${stderr}`,
          ),
        );
      }, timeoutMs);
      const onExit = () => {
        if (check()) return;
        finish();
        reject(
          new Error(
            `host ${name} exited (${child.exitCode ?? child.signalCode}):\n${JSON.stringify(lines)}\n${stderr}`,
          ),
        );
      };
      const finish = () => {
        clearTimeout(timer);
        watchers.delete(watch);
        child.off("exit", onExit);
      };
      const watch = () => void check();
      if (check()) return;
      watchers.add(watch);
      child.once("exit", onExit);
    });

  const signal = (which: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(which);
  };
  await waitFor((line) => line.ready === name);
  return {
    name,
    child,
    lines,
    send: (command) => child.stdin!.write(`${JSON.stringify(command)}\n`),
    waitFor,
    pause: () => signal("SIGSTOP"),
    resume: () => signal("SIGCONT"),
    stop: async () => {
      signal("SIGCONT");
      signal("SIGTERM");
      await exited;
    },
  };
}
