import {
  assertKnownKeys,
  assertOptions,
  describe,
  optionalFunction,
  optionalSchema,
  requireBlock,
} from "../blocks/validate.js";
import { DefinitionError } from "../errors.js";
import { normalizePolicy, POLICY_KEYS } from "./actions.js";
import type { WebhookBinding, WebhookProviderBindings } from "./flow-types.js";
import { assertPathName } from "./path-segment.js";

const BINDING_KEYS = ["block", "input", "inputSchema", "sessionId", "when", ...POLICY_KEYS];

/** `when` is synchronous: a promise would always be truthy, so an async function is refused outright. */
function syncPredicate(where: string, value: unknown): WebhookBinding["when"] {
  const when = optionalFunction<WebhookBinding["when"]>(where, "when", value);
  if (when !== undefined && when.constructor?.name === "AsyncFunction") {
    throw new DefinitionError(`${where}: "when" must be synchronous (a promise is always truthy).`);
  }
  return when;
}

/**
 * Checks a flow's `webhooks` map. Whether each provider is configured at the host (rule 12) is the
 * engine's startup check.
 */
export function normalizeWebhooks(
  flowKind: string,
  value: unknown,
): Readonly<Record<string, WebhookProviderBindings>> {
  if (value === undefined) return Object.freeze({});
  const where = `Flow "${flowKind}"`;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new DefinitionError(
      `${where}: "webhooks" must be an object of provider → { on }, got ${describe(value)}.`,
    );
  }
  // Built from entries: an assignment `map[name] = …` would set the prototype for the name `__proto__`
  // instead of adding it, and drop that provider or event type without a word.
  const providers: Array<[string, WebhookProviderBindings]> = [];
  for (const [provider, config] of Object.entries(value)) {
    assertPathName(where, "webhook provider name", provider);
    const at = `${where} webhook "${provider}"`;
    assertOptions(at, config);
    assertKnownKeys(at, config, ["on"]);
    const on = config.on;
    if (typeof on !== "object" || on === null || Array.isArray(on)) {
      throw new DefinitionError(
        `${at}: "on" must be an object of event type → binding, got ${describe(on)}.`,
      );
    }
    const bindings: Array<[string, WebhookBinding]> = [];
    for (const [eventType, binding] of Object.entries(on)) {
      if (eventType === "") throw new DefinitionError(`${at}: event types must be non-empty.`);
      const bindingAt = `${at} event "${eventType}"`;
      assertOptions(bindingAt, binding);
      assertKnownKeys(bindingAt, binding, BINDING_KEYS);
      const normalized: WebhookBinding = Object.freeze({
        provider,
        eventType,
        block: requireBlock(bindingAt, "block", binding.block),
        input: optionalFunction<WebhookBinding["input"]>(bindingAt, "input", binding.input),
        inputSchema: optionalSchema(bindingAt, "inputSchema", binding.inputSchema),
        sessionId: optionalFunction<WebhookBinding["sessionId"]>(bindingAt, "sessionId", binding.sessionId),
        when: syncPredicate(bindingAt, binding.when),
        ...normalizePolicy(bindingAt, binding),
      });
      bindings.push([eventType, normalized]);
    }
    providers.push([provider, Object.freeze({ on: Object.freeze(Object.fromEntries(bindings)) })]);
  }
  return Object.freeze(Object.fromEntries(providers));
}
