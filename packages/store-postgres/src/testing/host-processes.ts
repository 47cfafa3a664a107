/**
 * Starts flowrt hosts (`host-process.ts`) as child processes and talks to them over real sockets:
 * JSON calls with `fetch`, event streams with `node:http` (read as they arrive, timestamped).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { request as httpRequest } from "node:http";
import { fileURLToPath } from "node:url";

const SCRIPT = fileURLToPath(new URL("./host-process.ts", import.meta.url));

export interface HostProcess {
  name: string;
  /** `http://127.0.0.1:<port>/api/flows` */
  url: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout so far. */
  stdout(): string;
  /** Everything the process wrote to stderr so far (its log, with `log: true`). */
  stderr(): string;
  /** Resolves with the first match of `pattern` in stdout, waiting for it when needed. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** The same on stderr. */
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** SIGSTOP: the process freezes where it is (a long GC pause, a frozen VM), holding its claims. */
  freeze(): void;
  /** SIGCONT: a frozen process goes on from where it was. */
  thaw(): void;
  /** SIGTERM, and waits for the process to exit. */
  stop(): Promise<void>;
  /** SIGKILL: the host dies mid-whatever, leaving its claims behind. */
  kill(): Promise<void>;
}

export async function startHost(
  name: string,
  options: {
    databaseUrl: string;
    schema: string;
    leaseMs?: number;
    hang?: boolean;
    /** The host's `recoveryIntervalMs`. @default 200 */
    recoveryIntervalMs?: number;
    /** Warnings and errors to stderr (see {@link HostProcess.waitForLog}). @default false */
    log?: boolean;
    /** Another host script (a path), which prints `listening <url>` as `host-process.ts` does. @default host-process.ts */
    script?: string;
    /** More environment for the script. */
    env?: Record<string, string>;
  },
): Promise<HostProcess> {
  const script = options.script ?? SCRIPT;
  const child = spawn(process.execPath, ["--conditions=@flowrt/source", "--import", "tsx", script], {
    env: {
      ...process.env,
      ...options.env,
      DATABASE_URL: options.databaseUrl,
      FLOWRT_TEST_SCHEMA: options.schema,
      FLOWRT_TEST_HOST: name,
      FLOWRT_TEST_LEASE_MS: String(options.leaseMs ?? 5_000),
      ...(options.hang ? { FLOWRT_TEST_HANG: "1" } : {}),
      ...(options.recoveryIntervalMs === undefined
        ? {}
        : { FLOWRT_TEST_RECOVERY_MS: String(options.recoveryIntervalMs) }),
      ...(options.log ? { FLOWRT_TEST_LOG: "1" } : {}),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  const watchers = new Set<() => void>();
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
    for (const watcher of watchers) watcher();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
    for (const watcher of watchers) watcher();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  const waitFor = (stream: "stdout" | "stderr", pattern: RegExp, timeoutMs = 20_000) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(stream === "stdout" ? out : err);
        if (!match) return false;
        finish();
        resolve(match);
        return true;
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`host ${name}: no ${pattern} on ${stream} within ${timeoutMs} ms.\n${out}\n${err}`));
      }, timeoutMs);
      const onExit = () => {
        if (check()) return;
        finish();
        reject(new Error(`host ${name} exited (${child.exitCode ?? child.signalCode}):\n${out}\n${err}`));
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

  const signal = async (which: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(which);
    await exited;
  };

  const waitForOutput = (pattern: RegExp, timeoutMs?: number) => waitFor("stdout", pattern, timeoutMs);
  const [, url] = await waitForOutput(/listening (\S+)/);
  return {
    name,
    url: url!,
    child,
    stdout: () => out,
    stderr: () => err,
    waitForOutput,
    waitForLog: (pattern, timeoutMs) => waitFor("stderr", pattern, timeoutMs),
    freeze: () => void child.kill("SIGSTOP"),
    thaw: () => void child.kill("SIGCONT"),
    stop: () => signal("SIGTERM"),
    kill: () => signal("SIGKILL"),
  };
}

export interface JsonReply {
  status: number;
  body: any;
}

/** One JSON call to a host; the reply body is parsed when there is one. */
export async function call(
  host: Pick<HostProcess, "url">,
  method: string,
  path: string,
  body?: unknown,
): Promise<JsonReply> {
  const response = await fetch(`${host.url}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text) };
}

export interface StreamedEvent {
  id: number;
  event: string;
  data: any;
  /** `Date.now()` when the event's last line arrived on the socket. */
  receivedAt: number;
}

/**
 * Opens an SSE stream over a raw HTTP request and collects its events as they arrive; `done`
 * resolves when the server ends the stream.
 */
export function openEventStream(
  url: string,
  headers: Record<string, string> = {},
): {
  events: StreamedEvent[];
  status: Promise<number>;
  done: Promise<void>;
  close(): void;
} {
  const events: StreamedEvent[] = [];
  let buffer = "";
  let resolveStatus!: (status: number) => void;
  const status = new Promise<number>((resolve) => {
    resolveStatus = resolve;
  });
  const req = httpRequest(url, { headers: { accept: "text/event-stream", ...headers } });
  const done = new Promise<void>((resolve, reject) => {
    req.on("response", (res) => {
      resolveStatus(res.statusCode ?? 0);
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields: Record<string, string> = {};
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) continue; // heartbeat comment
            const colon = line.indexOf(":");
            if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1).trimStart();
          }
          if (fields.data === undefined) continue;
          events.push({
            id: Number(fields.id),
            event: fields.event ?? "message",
            data: JSON.parse(fields.data),
            receivedAt: Date.now(),
          });
        }
      });
      res.on("end", () => resolve());
      res.on("error", reject);
    });
    req.on("error", reject);
  });
  req.end();
  return { events, status, done, close: () => req.destroy() };
}

const TERMINAL = new Set(["request.completed", "request.failed", "request.aborted"]);

/**
 * A request's whole stream as a client reads it: when the server ends the stream before a terminal
 * event, it reconnects with `Last-Event-ID` (the documented resume), up to `maxReconnects` times.
 */
export async function followRequest(
  host: HostProcess,
  requestId: string,
  maxReconnects = 3,
): Promise<{ events: StreamedEvent[]; reconnects: number }> {
  const events: StreamedEvent[] = [];
  for (let reconnects = 0; ; reconnects++) {
    const last = events.at(-1)?.id;
    const stream = openEventStream(
      `${host.url}/requests/${requestId}/stream`,
      last === undefined ? {} : { "last-event-id": String(last) },
    );
    const status = await stream.status;
    if (status !== 200) throw new Error(`stream of ${requestId} on ${host.name} answered ${status}`);
    await stream.done;
    events.push(...stream.events);
    if (TERMINAL.has(events.at(-1)?.event ?? "") || reconnects >= maxReconnects)
      return { events, reconnects };
  }
}

/** Polls a request's record until it has finished; returns it. */
export async function settled(host: HostProcess, requestId: string, timeoutMs = 20_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { status, body } = await call(host, "GET", `/requests/${requestId}`);
    if (status !== 200) throw new Error(`GET request ${requestId} on ${host.name} answered ${status}`);
    if (["completed", "failed", "aborted"].includes(body.request.status)) return body.request;
    if (Date.now() > deadline) throw new Error(`request ${requestId} still ${body.request.status}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Runs `trial(0…count-1)` with at most `width` in flight. */
export async function trials(
  count: number,
  width: number,
  trial: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await trial(next++);
    }),
  );
}
