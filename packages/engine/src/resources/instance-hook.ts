import type { BlockLogger } from "@flowrt/core";

/**
 * Runs an instance hook (`onInstanceCreated`, `onInstanceUpdated`, `onInstanceDeleted`). Hooks are synchronous side
 * effects after a committed write: one that throws is logged as `<what> threw`, and the write stands. One that
 * returns a promise anyway (an async function) is not awaited, but its rejection is logged like a throw rather than
 * left unhandled (which would end the process).
 */
export function runInstanceHook(log: Pick<BlockLogger, "error">, what: string, run: () => unknown): void {
  const failed = (error: unknown) => log.error(`${what} threw`, { error: (error as Error)?.message });
  try {
    const result = run();
    if (result instanceof Promise) result.catch(failed);
  } catch (error) {
    failed(error);
  }
}
