import type { FlowStores, RequestRecord } from "@flowrt/core";
import type { HostLogger } from "../logger.js";
import type { RequestLifecycle } from "./lifecycle.js";

/** What {@link handOn} needs of the runner. */
export interface HandOnContext {
  readonly lifecycle: RequestLifecycle;
  readonly stores: FlowStores;
  readonly hostId: string;
  readonly logger: HostLogger;
  /** Told of a failure of the hand-on itself (a store that refused). */
  readonly failed: (requestId: string, error: unknown) => void;
}

/**
 * A request this host claimed and will not finish (its close ran out of grace): a durable one's claim is
 * released, so the next recovery pass of any host on the store takes it over at once (the store keeps it,
 * `running`, whatever happens to this process); a non-durable one, which nobody resumes, fails with `host-lost`
 * now rather than when another host notices.
 */
export async function handOn(
  context: HandOnContext,
  request: Pick<RequestRecord, "id" | "durable" | "epoch">,
): Promise<void> {
  const { lifecycle, logger, stores } = context;
  try {
    if (request.durable) {
      const released = await lifecycle.release(request.id, request.epoch ?? 0);
      logger.warn(
        { requestId: request.id, claim: released ? "released" : "left to lapse" },
        "shutdown: a durable request still running at the end of the grace period is left for recovery",
      );
      return;
    }
    const current = await lifecycle.read(request.id);
    if (current?.status === "running" && current.claim?.hostId === context.hostId) {
      await lifecycle.orphan(current, () => stores.requests.clearActive(request.id));
    }
    logger.warn(
      { requestId: request.id },
      "shutdown: a request still running at the end of the grace period failed (host-lost)",
    );
  } catch (error) {
    context.failed(request.id, error);
  }
}
