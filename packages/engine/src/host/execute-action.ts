import type { AnyBlock, BlockContext, BlockLogger, JsonObject, ReactionDefinition } from "@flowrt/core";
import { type BlockRun, createTokenBudget, executeBlock, runAction } from "../blocks/index.js";
import { createContentTools, createResourceScope } from "../resources/index.js";
import type { FlowHost } from "./flow-host.js";
import type { HostLogger } from "./logger.js";
import { principalOfRecord } from "./principal.js";
import type { RequestExecutor } from "./request-runner.js";

/** A logger that stamps every line with the request it belongs to. */
export function requestLogger(logger: HostLogger, fields: Record<string, unknown>): BlockLogger {
  return {
    debug: (message, data) => logger.debug(message, { ...fields, ...data }),
    info: (message, data) => logger.info(message, { ...fields, ...data }),
    warn: (message, data) => logger.warn(message, { ...fields, ...data }),
    error: (message, data) => logger.error(message, { ...fields, ...data }),
  };
}

/**
 * Runs one claimed request: builds its resource scope (flow-level resources load at request start,
 * action-level ones when their block runs), the block context, and executes the block tree under the
 * action's policy (token budget, `onCompleted`, `onErrored`).
 */
export async function executeAction(host: FlowHost, run: Parameters<RequestExecutor>[0]): Promise<unknown> {
  const { record, flow, session, block, policy, signal } = run;
  const principal = principalOfRecord(record, session);
  const log = requestLogger(host.logger, { requestId: record.id, flowId: flow.id });
  // Reactions run inside the originating turn, on the same run (context, stream, budget, signal). A
  // reaction does not re-trigger itself while it runs, so a reaction writing its own resource ends.
  let blockRun: BlockRun | undefined;
  const reacting = new Set<ReactionDefinition>();
  const runReaction = async (notice: { ref: string; change: string }) => {
    if (!blockRun) return;
    for (const reaction of flow.definition.reactions) {
      if (reaction.reactTo.resource !== notice.ref) continue;
      if (!(reaction.reactTo.changes as readonly string[]).includes(notice.change)) continue;
      if (reacting.has(reaction)) continue;
      reacting.add(reaction);
      try {
        await executeBlock(reaction.block, JSON.parse(JSON.stringify(notice)), blockRun);
      } finally {
        reacting.delete(reaction);
      }
    }
  };
  const scope = createResourceScope(
    {
      stores: host.stores,
      flow: flow.definition,
      session,
      principal,
      requestId: record.id,
      signal,
      log,
      emit: (type, data) => run.emit(type, data),
      runReaction,
    },
    flow.flowResources,
  );
  await scope.loadScopes();
  await scope.load();

  const ctx: BlockContext = {
    session: scope.scopes.session,
    user: scope.scopes.user,
    org: scope.scopes.org,
    resources: scope.handles,
    principal,
    sessionId: session.id,
    requestId: record.id,
    flowId: flow.id,
    flowKind: flow.kind,
    signal,
    log,
    emit: async (event) => {
      await run.emit(event.type, (event.data ?? {}) as JsonObject);
    },
  };

  let contentTools: Record<string, unknown> | undefined;
  blockRun = {
    ctx,
    emit: (type, data) => run.emit(type, data),
    signal,
    budget: createTokenBudget(policy.tokenBudget),
    loadBlockResources: async (b) => {
      const fresh = Object.keys(b.resources).filter((accessor) => scope.definition(accessor) === undefined);
      scope.declare(b.resources);
      await scope.load(fresh);
    },
    contentTools: () => {
      contentTools ??= createContentTools(scope);
      return contentTools;
    },
  };
  return runAction(
    { block, onCompleted: policy.onCompleted, onErrored: policy.onErrored },
    actionInput(record.input, block),
    blockRun,
  );
}

/**
 * JSON has no `undefined`: a call without `input` is stored as `null`. When the block's schema refuses
 * `null` but accepts an absent input (`z.object({}).optional()`), it gets `undefined`, as the caller meant.
 */
function actionInput(stored: unknown, block: AnyBlock): unknown {
  const schema = block.inputSchema;
  if (stored !== null || !schema) return stored;
  return !schema.safeParse(null).success && schema.safeParse(undefined).success ? undefined : stored;
}
