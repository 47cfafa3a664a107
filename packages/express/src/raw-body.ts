import type { IncomingMessage, ServerResponse } from "node:http";
import { FlowError } from "@flowrt/core";

/** A request whose exact body bytes a `verify` hook kept (see {@link captureRawBody}). */
export interface RawBodyRequest extends IncomingMessage {
  rawBody?: Buffer;
}

/**
 * A `verify` hook for Express body parsers that keeps the exact bytes on `req.rawBody`, so a global body
 * parser mounted before the flow router leaves webhook signatures (and resolvers that sign over the body) working.
 * @example
 * app.use(express.json({ verify: captureRawBody }));
 * app.use(createFlowRouter(host));
 */
export function captureRawBody(req: IncomingMessage, _res: ServerResponse, buf: Buffer): void {
  (req as RawBodyRequest).rawBody = buf;
}

const CONSUMED = new FlowError(
  "invalid-request",
  "The request body was consumed by a body parser mounted before the flow router, which kept no copy of its " +
    "bytes. Mount the parser as express.json({ verify: captureRawBody }) (captureRawBody from @flowrt/express), " +
    "or mount the flow router before it.",
);
/** A body a parser before the router consumed, keeping no copy: reading it says how to fix the app. */
const consumedBody: AsyncIterable<Uint8Array> = {
  [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(CONSUMED) }),
};

/** The exact body bytes a `verify` hook kept (see {@link captureRawBody}), if any. */
export function keptBody(req: IncomingMessage): Buffer | undefined {
  const kept = (req as RawBodyRequest).rawBody;
  return Buffer.isBuffer(kept) ? kept : undefined;
}

/** The body still to read, which the engine reads; one a parser before the router consumed says how to fix the app. */
export function bodyStream(req: IncomingMessage): AsyncIterable<Uint8Array> {
  return req.readableEnded ? consumedBody : req;
}
