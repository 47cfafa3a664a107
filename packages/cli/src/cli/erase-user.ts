import type { FlowStores } from "@flowrt/core";
import { createFlowHost, type FlowHost } from "@flowrt/engine";
import type { FlowsModule } from "./load-flows-module.js";
import { openStores, type StoreSpec, UsageError } from "./store-spec.js";

export interface EraseUserCommand {
  store: StoreSpec;
  userId: string;
  /** Only the user's sessions and requests in this org (their user-scope data stays). */
  orgId?: string;
}

/** What `flowrt erase-user` removed (`host.eraseUser`'s counts). */
export type ErasedCounts = Awaited<ReturnType<FlowHost["eraseUser"]>>;

/**
 * Erases a user's data from the store a flows module is served on (what `flowrt erase-user` does): opens the
 * store as `flowrt serve` does, builds the module's host without starting it (so this process resumes no one's
 * durable work), calls `host.eraseUser`, then closes both. Org-scope data is kept.
 */
export async function eraseUserData(module: FlowsModule, command: EraseUserCommand): Promise<ErasedCounts> {
  if (command.userId === "") throw new UsageError("--user needs a user id.");
  if (command.orgId === "") throw new UsageError("--org needs an org id.");
  const stores: FlowStores = await openStores(command.store);
  let host: FlowHost | undefined;
  try {
    host = createFlowHost({
      flows: module.flows,
      stores,
      ...(module.resolvePrincipal ? { resolvePrincipal: module.resolvePrincipal } : {}),
      // A one-off administrative process: nothing to purge on a timer.
      retention: false,
    });
    return await host.eraseUser({
      userId: command.userId,
      ...(command.orgId !== undefined ? { orgId: command.orgId } : {}),
    });
  } finally {
    await host?.close().catch(() => {});
    await stores.close().catch(() => {});
  }
}
