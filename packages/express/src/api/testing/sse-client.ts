import { request as httpRequest, type IncomingMessage } from "node:http";

export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  /** Comment lines (`: ping`). */
  comments: string[];
}

export interface SseConnection {
  status: number;
  headers: IncomingMessage["headers"];
  /** Resolves with the next message, or `null` once the server ended the stream. */
  next(): Promise<SseMessage | null>;
  /** Every remaining message until the server ends the stream. */
  rest(): Promise<SseMessage[]>;
  /** Drops the connection (a client going away). */
  close(): void;
}

/**
 * A minimal `text/event-stream` client over a real socket (`node:http`), so the tests see exactly the
 * bytes the adapter writes: `id:`/`event:`/`data:` lines, blank-line separators and comments.
 */
export function openSse(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<SseConnection> {
  return new Promise((resolve, reject) => {
    const body = options.body;
    const req = httpRequest(url, {
      method: options.method ?? "GET",
      headers: {
        accept: "text/event-stream",
        ...(body !== undefined
          ? { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) }
          : {}),
        ...options.headers,
      },
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer from ${url}`)));
    req.on("error", reject);
    req.on("response", (res) => {
      res.setEncoding("utf8");
      let buffer = "";
      let ended = false;
      const queue: SseMessage[] = [];
      let wake: (() => void) | undefined;
      const notify = () => {
        wake?.();
        wake = undefined;
      };
      res.on("data", (chunk: string) => {
        buffer += chunk;
        for (let cut = buffer.indexOf("\n\n"); cut >= 0; cut = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const message: SseMessage = { comments: [] };
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) message.comments.push(line.slice(1).trim());
            else {
              const colon = line.indexOf(":");
              const field = line.slice(0, colon);
              const value = line.slice(colon + 1).replace(/^ /, "");
              if (field === "id" || field === "event") message[field] = value;
              else if (field === "data")
                message.data = message.data === undefined ? value : `${message.data}\n${value}`;
            }
          }
          queue.push(message);
        }
        notify();
      });
      const finish = () => {
        ended = true;
        notify();
      };
      res.on("end", finish);
      res.on("close", finish);
      res.on("error", finish);
      const next = async (): Promise<SseMessage | null> => {
        for (;;) {
          const message = queue.shift();
          if (message) return message;
          if (ended) return null;
          await new Promise<void>((r) => {
            wake = r;
          });
        }
      };
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        next,
        async rest() {
          const out: SseMessage[] = [];
          for (let m = await next(); m !== null; m = await next()) out.push(m);
          return out;
        },
        close: () => {
          req.destroy();
          res.destroy();
        },
      });
    });
    req.end(body);
  });
}

/** Messages that carry an event (heartbeat-only comment blocks dropped). */
export function eventsOf(
  messages: SseMessage[],
): Array<{ id: number; event: string; data: Record<string, unknown> }> {
  return messages
    .filter((m) => m.id !== undefined)
    .map((m) => ({ id: Number(m.id), event: m.event ?? "", data: JSON.parse(m.data ?? "null") }));
}
