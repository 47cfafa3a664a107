import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { type AnyFlowDefinition, isFlowDefinition, type PrincipalResolver } from "@flowrt/core";
import type { InboundAdapter, WebhookProviderDefinition } from "@flowrt/engine";
import { importModule } from "./import-module.js";
import { UsageError } from "./store-spec.js";

/** What a flows module gives `flowrt serve`. */
export interface FlowsModule {
  flows: AnyFlowDefinition[];
  resolvePrincipal?: PrincipalResolver;
  webhookProviders?: Record<string, WebhookProviderDefinition>;
  /** Custom inbound adapters; their routes are mounted beside the API. */
  inbound?: InboundAdapter[];
}

function isInboundAdapter(value: unknown): value is InboundAdapter {
  if (typeof value !== "object" || value === null) return false;
  const adapter = value as Partial<InboundAdapter>;
  return typeof adapter.source === "string" && typeof adapter.createBindings === "function";
}

function flowList(value: unknown, name: string): AnyFlowDefinition[] {
  if (!Array.isArray(value) || !value.every(isFlowDefinition)) {
    throw new UsageError(`The module's ${name} must be an array of flow definitions (made with defineFlow).`);
  }
  return value;
}

/**
 * Picks the flows out of a module's exports, in this order: a default export that is an array; else a
 * named `flows` array; else every export (default included) that is a flow definition.
 */
export function flowsFromExports(exports: Record<string, unknown>): FlowsModule {
  let flows: AnyFlowDefinition[];
  if (Array.isArray(exports.default)) flows = flowList(exports.default, "default export");
  else if (exports.flows !== undefined) flows = flowList(exports.flows, '"flows" export');
  else flows = [...new Set(Object.values(exports).filter(isFlowDefinition))];
  if (flows.length === 0) {
    throw new UsageError(
      "The module exports no flows: export them as a default array, a named `flows` array, or named flow definitions.",
    );
  }
  const module: FlowsModule = { flows };
  const { resolvePrincipal, webhookProviders, inbound } = exports;
  if (resolvePrincipal !== undefined) {
    if (typeof resolvePrincipal !== "function")
      throw new UsageError('The "resolvePrincipal" export must be a function.');
    module.resolvePrincipal = resolvePrincipal as PrincipalResolver;
  }
  if (webhookProviders !== undefined) {
    if (typeof webhookProviders !== "object" || webhookProviders === null) {
      throw new UsageError('The "webhookProviders" export must be an object keyed by provider name.');
    }
    module.webhookProviders = webhookProviders as Record<string, WebhookProviderDefinition>;
  }
  if (inbound !== undefined) {
    if (!Array.isArray(inbound) || !inbound.every(isInboundAdapter)) {
      throw new UsageError(
        'The "inbound" export must be an array of inbound adapters ({ source, createBindings(host) }).',
      );
    }
    module.inbound = inbound;
  }
  return module;
}

/**
 * Loads a flows module from a path relative to `cwd`: JavaScript, or TypeScript through Node's type stripping or
 * tsx (see {@link importModule}).
 */
export async function loadFlowsModule(path: string, cwd = process.cwd()): Promise<FlowsModule> {
  const file = resolve(cwd, path);
  if (!existsSync(file)) throw new UsageError(`No flows module at ${file}.`);
  return flowsFromExports(await importModule(file));
}
