import type { IncomingMessage, ServerResponse } from "node:http";
import getRawBody from "raw-body";

/** A request whose exact body bytes a `verify` hook kept (see {@link captureRawBody}). */
export interface RawBodyRequest extends IncomingMessage {
  rawBody?: Buffer;
}

/**
 * A `verify` hook for Express body parsers that keeps the exact bytes on `req.rawBody`, so a global
 * `express.json({ verify: captureRawBody })` mounted before the flow router leaves webhook signature
 * checks (and resolvers that sign over the body) working.
 *
 * @example
 * app.use(express.json({ verify: captureRawBody }));
 * app.use(createFlowRouter(host));
 */
export function captureRawBody(req: IncomingMessage, _res: ServerResponse, buf: Buffer): void {
  (req as RawBodyRequest).rawBody = buf;
}

/** Why the body could not be read; the router turns it into a problem response. */
export class BodyReadError extends Error {
  constructor(
    readonly status: 400 | 413 | 499,
    readonly code: "invalid-request" | "payload-too-large" | "client-closed",
    message: string,
  ) {
    super(message);
    this.name = "BodyReadError";
  }
}

function declaresBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/**
 * Reads off and discards what is left of a refused body before answering, as body-parser does: a client
 * still sending would otherwise see its connection reset instead of the 413.
 */
export function discardBody(req: IncomingMessage): Promise<void> {
  if (req.readableEnded || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      req.off("end", done);
      req.off("close", done);
      req.off("error", done);
      resolve();
    };
    req.on("end", done);
    req.on("close", done);
    req.on("error", done);
    req.resume();
  });
}

const NO_BODY = Buffer.alloc(0);

/**
 * The body bytes when they need no reading: those a `verify` hook kept, or none at all for a message
 * without Content-Length (or 0) and without Transfer-Encoding (RFC 9112 §6.3; body-parser skips such
 * requests the same way). `undefined` when the body is still to be read.
 */
export function bodyAtHand(req: IncomingMessage): Buffer | undefined {
  const kept = (req as RawBodyRequest).rawBody;
  if (Buffer.isBuffer(kept)) return kept;
  return declaresBody(req) ? undefined : NO_BODY;
}

/**
 * The request's exact body bytes: those a `verify` hook kept, or read from the stream here (for every
 * content type) up to `limit` bytes.
 */
export async function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const atHand = bodyAtHand(req);
  if (atHand !== undefined) return atHand;
  if (req.readableEnded) {
    // A body parser mounted before the router consumed the stream and kept nothing: the exact bytes
    // are gone, so neither a webhook signature nor the JSON body can be trusted. Say how to fix it.
    throw new BodyReadError(
      400,
      "invalid-request",
      "The request body was consumed by a body parser mounted before the flow router, which kept no copy " +
        "of its bytes. Mount the parser as express.json({ verify: captureRawBody }) (captureRawBody from " +
        "@flowrt/express), or mount the flow router before it.",
    );
  }
  try {
    return await getRawBody(req, { limit, length: req.headers["content-length"] });
  } catch (error) {
    const type = (error as { type?: unknown }).type;
    if (type === "entity.too.large") {
      throw new BodyReadError(413, "payload-too-large", `The request body exceeds ${limit} bytes.`);
    }
    if (type === "request.aborted") throw new BodyReadError(499, "client-closed", "The client went away.");
    if (type === "request.size.invalid") {
      throw new BodyReadError(400, "invalid-request", "The request body does not match its Content-Length.");
    }
    throw error;
  }
}
