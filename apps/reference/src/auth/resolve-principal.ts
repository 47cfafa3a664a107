import { createHs256JwtVerifier, extractBearerToken } from "@flowrt/auth";
import { PrincipalResolutionError, type PrincipalResolver } from "@flowrt/core";
import { jwtAudience, jwtIssuer, jwtSecret } from "./dev-tokens.js";

const verifyJwt = createHs256JwtVerifier({ secret: jwtSecret, issuer: jwtIssuer, audience: jwtAudience });

/** The org webhook deliveries act in: their board is the one they write to. */
export const webhookOrgId = process.env.FLOWRT_WEBHOOK_ORG || "acme";

/**
 * Who the caller is. HTTP and MCP callers present `Authorization: Bearer <jwt>`; the token's `sub` is the user
 * and its `org` claim the org. A webhook delivery was already authenticated by its provider's signature, so it
 * acts as the `webhooks` user of {@link webhookOrgId}.
 */
export const resolvePrincipal: PrincipalResolver = async (context) => {
  if (context.source === "webhook") return { userId: "webhooks", orgId: webhookOrgId };
  const token = extractBearerToken(context.request?.headers.authorization);
  if (token === null) return null;
  const claims = await verifyJwt(token);
  if (claims === null || typeof claims.sub !== "string") {
    throw new PrincipalResolutionError("invalid or expired token", { status: 401 });
  }
  return typeof claims.org === "string" ? { userId: claims.sub, orgId: claims.org } : { userId: claims.sub };
};
