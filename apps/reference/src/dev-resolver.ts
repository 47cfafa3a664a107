import type { PrincipalResolver } from "@flowrt/core";

/**
 * FOR LOCAL DEVELOPMENT ONLY. Trusts the `x-user-id` header (and `x-org-id`) as the caller's identity,
 * so anyone who can reach the server can act as any user. A real application verifies a credential here
 * (a session cookie, or a JWT with `createHs256JwtVerifier` from `@flowrt/auth`).
 */
export const developmentHeaderResolver: PrincipalResolver = (context) => {
  const header = (name: string) => {
    const value = context.request?.headers[name];
    return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
  };
  const userId = header("x-user-id");
  if (!userId) return null;
  const orgId = header("x-org-id");
  return orgId ? { userId, orgId } : { userId };
};
