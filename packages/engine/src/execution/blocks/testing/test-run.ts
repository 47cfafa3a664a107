import type { AnyBlock, BlockContext, JsonObject } from "@flowrt/core";
import type { BlockRun } from "../block-run.js";

export interface RecordedEvent {
  type: string;
  data: JsonObject;
}

export interface TestRun {
  run: BlockRun;
  /** Every event emitted, in order. */
  events: RecordedEvent[];
  /** Names of the blocks whose resources were requested, in order. */
  loaded: string[];
  /** `ctx.log.error` lines. */
  errors: string[];
  controller: AbortController;
}

/**
 * A block run as the host would hand it over, recording what block execution does with it. The context
 * carries only what block execution itself touches (signal, log, ids); scope and resource handles belong
 * to the host and resource engine tests.
 */
export function createTestRun(
  options: { limit?: number; contentTools?: () => Record<string, unknown> } = {},
): TestRun {
  const controller = new AbortController();
  const events: RecordedEvent[] = [];
  const loaded: string[] = [];
  const errors: string[] = [];
  const ctx = {
    sessionId: "s-1",
    requestId: "r-1",
    flowId: "test",
    flowKind: "test",
    principal: { userId: "u-1" },
    resources: {},
    signal: controller.signal,
    log: {
      debug() {},
      info() {},
      warn() {},
      error(message: string) {
        errors.push(message);
      },
    },
    emit: async () => {},
  } as unknown as BlockContext;
  const run: BlockRun = {
    ctx,
    signal: controller.signal,
    budget: options.limit === undefined ? { used: 0 } : { limit: options.limit, used: 0 },
    emit: async (type, data) => {
      events.push({ type, data });
    },
    loadBlockResources: async (block: AnyBlock) => {
      loaded.push(block.name);
    },
    contentTools: options.contentTools ?? (() => ({})),
  };
  return { run, events, loaded, errors, controller };
}

/** The `block.started` / `block.completed` events as `started:name` / `completed:name`. */
export function blockTrail(events: RecordedEvent[]): string[] {
  return events
    .filter((e) => e.type === "block.started" || e.type === "block.completed")
    .map((e) => `${e.type.slice("block.".length)}:${String(e.data.block)}`);
}
