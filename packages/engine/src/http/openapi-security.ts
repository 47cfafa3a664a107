import type { RegisteredFlow } from "../flows/registry.js";
import type { FlowHost } from "../host.js";
import type { RouteAuth } from "./route-doc.js";

/** Whether an operation needs a credential: always, when the caller has one (else it acts anonymously), or never. */
export type CredentialNeed = "required" | "optional" | "none";

/**
 * What a flow's resolver asks of a caller: a credential where it requires a user (401 without one), an optional
 * one where it does not (`requireUser: false` falls back to `defaultUserId`), none without a resolver (the
 * caller names its user in the body).
 */
export function flowNeed(host: FlowHost, flow: RegisteredFlow): CredentialNeed {
  if (!host.hasResolver(flow)) return "none";
  return flow.definition.authentication.requireUser ? "required" : "optional";
}

/**
 * What a route asks, whichever flow governs what it addresses: `principal` is as strict as every flow of the host
 * agrees on (optional when they differ), `optional-principal` never refuses, `none` and `signature` run no
 * resolver.
 */
export function routeNeed(host: FlowHost, auth: RouteAuth): CredentialNeed {
  if (auth === "none" || auth === "signature") return "none";
  const needs = new Set(host.registry.flows.map((flow) => flowNeed(host, flow)));
  if (needs.size === 0 || (needs.size === 1 && needs.has("none"))) return "none";
  return auth === "principal" && needs.size === 1 && needs.has("required") ? "required" : "optional";
}

/**
 * The operation's `security`: any one of the host's schemes, with `{}` (no credential) beside them when optional,
 * and `[]` (explicitly none) where no resolver runs.
 */
export function securityRequirement(host: FlowHost, need: CredentialNeed): object[] {
  const names = Object.keys(host.openapi.securitySchemes);
  if (need === "none" || names.length === 0) return [];
  const schemes = names.map((name) => ({ [name]: [] }));
  return need === "optional" ? [...schemes, {}] : schemes;
}
