/**
 * The engine alone on `node:http`: a minimal transport for the engine's transport-neutral handler
 * (`createMountedHandler`), as an adapter for another framework would be written (the way tRPC's are): convert the
 * `IncomingMessage` to a `MountedRequest`, write the `HttpResponse` (text, or an event stream's frames as the
 * socket takes them). No routing, body limits or status codes of its own: what the engine does not serve is 404.
 */
import { type IncomingMessage, METHODS, type RequestListener, type ServerResponse } from "node:http";
import { createMountedHandler, type FlowHost, type HttpResponse, type MountedRequest } from "@flowrt/engine";

class NodeRequest implements MountedRequest {
  readonly method: string;
  readonly target: string;
  readonly url: string;
  readonly headers: IncomingMessage["headers"];
  readonly rawHeaders: string[];
  readonly body: AsyncIterable<Uint8Array>;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  #gone: AbortController | undefined;

  constructor(req: IncomingMessage, res: ServerResponse) {
    this.method = req.method ?? "GET";
    this.target = req.url ?? "/";
    this.url = this.target;
    this.headers = req.headers;
    this.rawHeaders = req.rawHeaders;
    this.body = req;
    this.#req = req;
    this.#res = res;
  }

  get origin(): string {
    return `http://${this.#req.headers.host || "localhost"}`;
  }

  get remoteAddress(): string | undefined {
    return this.#req.socket.remoteAddress;
  }

  /** Aborts when the client goes away before the answer is written (read only by event streams). */
  get signal(): AbortSignal {
    if (this.#gone) return this.#gone.signal;
    const gone = new AbortController();
    this.#gone = gone;
    const res = this.#res;
    if (res.destroyed && !res.writableFinished) gone.abort();
    else res.once("close", () => res.writableFinished || gone.abort());
    return gone.signal;
  }
}

/** Writes `part`, waiting for the socket when it pushes back (leaving no listener behind); false once the client is gone. */
async function write(res: ServerResponse, part: Uint8Array | string): Promise<boolean> {
  if (res.destroyed) return false;
  if (res.write(part)) return true;
  await new Promise<void>((resolve) => {
    const done = () => {
      res.off("drain", done).off("close", done);
      resolve();
    };
    res.on("drain", done).on("close", done);
  });
  return !res.destroyed;
}

async function send(res: ServerResponse, response: HttpResponse): Promise<void> {
  const headers: string[] = [];
  for (const name of Object.keys(response.headers)) headers.push(name, response.headers[name]!);
  for (const line of response.setCookie ?? []) headers.push("set-cookie", line);
  if (response.statusText !== undefined) res.statusMessage = response.statusText;
  res.writeHead(response.status, headers);
  const parts = response.stream?.frames ?? response.chunks;
  if (!parts) return void res.end(response.bodyText);
  res.flushHeaders();
  for await (const part of parts) if (!(await write(res, part))) break;
  if (!res.writableEnded) res.end();
}

const NOT_FOUND = JSON.stringify({
  type: "about:blank",
  status: 404,
  code: "not-found",
  detail: "No such route.",
});

/** A `node:http` request listener serving the host's API and inbound routes. */
export function nodeListener(host: FlowHost): RequestListener {
  const handle = createMountedHandler(host, { methods: METHODS });
  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const response = await handle(new NodeRequest(req, res));
      if (response) return await send(res, response);
      res.writeHead(404, { "content-type": "application/problem+json" }).end(NOT_FOUND);
    } catch (error) {
      // Only this wrapper's own failures land here (the engine answers its own); the message stays in the log.
      host.logger.error({ method: req.method, url: req.url, err: error }, "node:http wrapper failed");
      if (res.headersSent) res.destroy();
      else res.writeHead(500, { "content-type": "application/problem+json" }).end('{"status":500}');
    }
  };
  return (req, res) => void serve(req, res);
}
