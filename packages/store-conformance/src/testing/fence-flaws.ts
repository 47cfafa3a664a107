import type { Fence, FlowStores } from "@flowrt/core";
import { FlowError } from "@flowrt/core";

/** The store methods that take a fence, as the fencing cases name them. */
export type FencedMethod =
  | "scopeState.put"
  | "resources.putState"
  | "resources.deleteState"
  | "resources.putContent"
  | "resources.deleteContent"
  | "requests.appendEvent";

export const FENCED_METHODS: readonly FencedMethod[] = [
  "scopeState.put",
  "resources.putState",
  "resources.deleteState",
  "resources.putContent",
  "resources.deleteContent",
  "requests.appendEvent",
];

/** How one method of an otherwise correct store mishandles its fence. */
export type FenceFlaw =
  /** Passes the write on without its fence: nothing is checked. */
  | "drops-fence"
  /**
   * Reads the request's epoch, refuses a stale fence, then (after an await) writes without it: the check is not
   * atomic with the write, so a claim can land in between (what a store that reads the claim row before an
   * unconditioned write does).
   */
  | "reads-claim-before-writing";

/**
 * `stores` with one fenced method made flawed, the rest untouched: the suite's own tests use it to prove that the
 * fencing cases check every method, not only the first one they call.
 */
export function withFenceFlaw(stores: FlowStores, method: FencedMethod, flaw: FenceFlaw): FlowStores {
  /** Runs `write` without the fence, after the flaw's own (non-atomic) check of it. */
  const flawed = async <T>(fence: Fence | undefined, write: () => Promise<T>): Promise<T> => {
    if (fence !== undefined && flaw === "reads-claim-before-writing") {
      const request = await stores.requests.get(fence.requestId);
      if (request === null || (request.epoch ?? 0) > fence.epoch) {
        throw new FlowError(
          "lease-lost",
          `flawed: request "${fence.requestId}" epoch ${fence.epoch} is stale`,
        );
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    return write();
  };
  const { scopeState, resources, requests } = stores;
  switch (method) {
    case "scopeState.put":
      return {
        ...stores,
        scopeState: {
          ...scopeState,
          put: (address, value, condition, fence) =>
            flawed(fence, () => scopeState.put(address, value, condition)),
        },
      };
    case "requests.appendEvent":
      return {
        ...stores,
        requests: {
          ...requests,
          appendEvent: (event, fence) => flawed(fence, () => requests.appendEvent(event)),
        },
      };
    case "resources.putState":
      return {
        ...stores,
        resources: {
          ...resources,
          putState: (address, key, state, condition, fence) =>
            flawed(fence, () => resources.putState(address, key, state, condition)),
        },
      };
    case "resources.deleteState":
      return {
        ...stores,
        resources: {
          ...resources,
          deleteState: (address, key, condition, fence) =>
            flawed(fence, () => resources.deleteState(address, key, condition)),
        },
      };
    case "resources.putContent":
      return {
        ...stores,
        resources: {
          ...resources,
          putContent: (address, key, content, fence) =>
            flawed(fence, () => resources.putContent(address, key, content)),
        },
      };
    case "resources.deleteContent":
      return {
        ...stores,
        resources: {
          ...resources,
          deleteContent: (address, key, fence) => flawed(fence, () => resources.deleteContent(address, key)),
        },
      };
  }
}
