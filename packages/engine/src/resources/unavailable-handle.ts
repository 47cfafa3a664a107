/**
 * The handle of a declared resource that this session cannot reach (an org-scoped resource on a session
 * without an org): every property access throws the reason, so the block fails at the line that used it.
 * `then` reads as absent so that awaiting or returning the handle does not throw by itself.
 */
export function unavailableHandle(reason: Error): object {
  return new Proxy(Object.freeze({}), {
    get(_target, property) {
      if (property === "then" || typeof property === "symbol") return undefined;
      throw reason;
    },
  });
}
