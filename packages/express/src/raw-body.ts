import type { IncomingMessage, ServerResponse } from "node:http";
import { FlowError } from "@flowrt/core";

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

/**
 * A body a parser mounted before the router consumed without keeping its bytes: the exact bytes are gone, so
 * neither a webhook signature nor the JSON body can be trusted. Reading it says how to fix the app. (A
 * request that declares no body is never read, so body-less requests pass.)
 */
const consumedBody: AsyncIterable<Uint8Array> = {
  [Symbol.asyncIterator]: () => ({
    next: () =>
      Promise.reject(
        new FlowError(
          "invalid-request",
          "The request body was consumed by a body parser mounted before the flow router, which kept no copy " +
            "of its bytes. Mount the parser as express.json({ verify: captureRawBody }) (captureRawBody from " +
            "@flowrt/express), or mount the flow router before it.",
        ),
      ),
  }),
};

/**
 * The body as the engine takes it: the bytes a `verify` hook kept, else the request stream itself, which the
 * engine reads under its limit (a stream already consumed by a parser answers why it cannot be read).
 */
export function bodyOf(req: IncomingMessage): { rawBody: Buffer } | { body: AsyncIterable<Uint8Array> } {
  const kept = (req as RawBodyRequest).rawBody;
  if (Buffer.isBuffer(kept)) return { rawBody: kept };
  return { body: req.readableEnded ? consumedBody : req };
}
