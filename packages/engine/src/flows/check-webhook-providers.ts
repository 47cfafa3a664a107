import { DefinitionError, FlowError } from "@flowrt/core";
import type { WebhookProviderDefinition } from "../host-options.js";
import type { FlowRegistry } from "./registry.js";

/**
 * Startup check of the host's webhook providers against its flows: every provider has a `verify` function and
 * functions for the hooks it gives; a flow declaring a provider the host did not configure fails startup
 * (`webhook-provider-not-configured`), and so does a flow routing with `on` through a provider without an
 * `eventType` extractor.
 */
export function checkWebhookProviders(
  providers: Readonly<Record<string, WebhookProviderDefinition>>,
  registry: FlowRegistry,
): void {
  for (const [provider, definition] of Object.entries(providers)) {
    const where = `createFlowHost({ webhookProviders }): provider "${provider}"`;
    if (typeof definition !== "object" || definition === null) {
      throw new DefinitionError(`${where} must be an object with a verify function.`);
    }
    if (typeof definition.verify !== "function") {
      throw new DefinitionError(
        `${where} has no verify function; every delivery would be refused. Give it verify(rawBody, headers) => boolean.`,
      );
    }
    for (const hook of ["eventType", "parse", "deliveryId", "acknowledge"] as const) {
      if (definition[hook] !== undefined && typeof definition[hook] !== "function") {
        throw new DefinitionError(`${where}: "${hook}" must be a function when given.`);
      }
    }
  }
  for (const flow of registry.flows) {
    for (const [provider, bindings] of Object.entries(flow.definition.webhooks)) {
      const configured = Object.hasOwn(providers, provider) ? providers[provider] : undefined;
      if (!configured) {
        throw new FlowError(
          "webhook-provider-not-configured",
          `Flow "${flow.id}" declares webhook provider "${provider}", which the host did not configure. ` +
            `Add it to createFlowHost({ webhookProviders: { ${provider}: { verify, eventType } } }).`,
        );
      }
      if (Object.keys(bindings.on).length > 0 && typeof configured.eventType !== "function") {
        throw new DefinitionError(
          `Flow "${flow.id}" routes "${provider}" deliveries with "on", but the host's "${provider}" provider has no eventType extractor.`,
        );
      }
    }
  }
}
