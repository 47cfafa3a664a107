import type { RequestHandler } from "express";
import { signDevToken, signInSchema } from "./dev-tokens.js";

/**
 * `POST /auth/token` `{ userId, orgId? }` → `{ token }`. FOR LOCAL DEVELOPMENT ONLY: it signs in anyone as
 * anyone. Bad input is a problem+json 400 with code `invalid-sign-in`.
 */
export const devTokenRoute: RequestHandler = async (req, res) => {
  const parsed = signInSchema.safeParse(req.body ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    res
      .status(400)
      .type("application/problem+json")
      .json({
        type: "about:blank",
        title: "Bad Request",
        status: 400,
        code: "invalid-sign-in",
        detail: `${issue?.path.join(".") || "body"}: ${issue?.message ?? "invalid"}`,
      });
    return;
  }
  res.json({ token: await signDevToken(parsed.data), ...parsed.data });
};
