// The CLI README's flows module (flows.ts, beside this file) with a resolver for the client's example, which
// sends `authorization: Bearer <token>`: the token names the caller. A stand-in for a real verifier such as
// @flowrt/auth's createHs256JwtVerifier, enough for a rehearsal on loopback.
export { notebook } from "./flows.ts";

export const resolvePrincipal = async (ctx: { request?: { headers: Record<string, unknown> } }) => {
  const header = ctx.request?.headers.authorization;
  return typeof header === "string" && header.startsWith("Bearer ") ? { userId: header.slice(7) } : null;
};
