/**
 * The `pages` benchmark's client: one request at a time over one keep-alive connection, each timed from the
 * request written to the last byte of its answer (`performance.now()`). Nothing else runs in this process while a
 * request is in flight, so a sample is one page's round trip through the server's HTTP stack, route, engine and
 * store.
 */
import { Agent, request } from "node:http";
import { USER_HEADER } from "./http-fixture.js";

export interface TimedAnswer {
  status: number;
  ms: number;
  body: string;
}

export class PageClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });

  constructor(
    private readonly origin: string,
    private readonly userId: string,
  ) {}

  /** GETs `path` and reads the whole answer. */
  get(path: string): Promise<TimedAnswer> {
    return new Promise((resolve, reject) => {
      const t0 = performance.now();
      const req = request(
        `${this.origin}${path}`,
        { agent: this.agent, headers: { [USER_HEADER]: this.userId } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => {
            const ms = performance.now() - t0;
            resolve({ status: res.statusCode ?? 0, ms, body: Buffer.concat(chunks).toString("utf8") });
          });
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
