import { SignJWT } from "jose";
import { z } from "zod";

/**
 * FOR LOCAL DEVELOPMENT ONLY: the secret the development token route signs with and the resolver checks.
 * `FLOWRT_JWT_SECRET` (at least 32 bytes) replaces it; a real app checks tokens its identity provider issues.
 */
export const jwtSecret = process.env.FLOWRT_JWT_SECRET || "flowrt-reference-development-secret-32+bytes";
export const jwtIssuer = "flowrt-reference";
export const jwtAudience = "flowrt-reference";

/** Who may sign in: a user id and the org whose board they share (URL-safe names). */
export const signInSchema = z.object({
  userId: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "letters, digits, '.', '_' or '-', at most 64"),
  orgId: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, "letters, digits, '.', '_' or '-', at most 64")
    .default("acme"),
});

/** An HS256 JWT for `userId` in `orgId` (claim `org`), valid for 12 hours. */
export function signDevToken(who: z.input<typeof signInSchema>): Promise<string> {
  const { userId, orgId } = signInSchema.parse(who);
  return new SignJWT({ org: orgId })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(userId)
    .setIssuer(jwtIssuer)
    .setAudience(jwtAudience)
    .setIssuedAt()
    .setExpirationTime("12h")
    .sign(new TextEncoder().encode(jwtSecret));
}
