import type { PrincipalResolver } from "@flowrt/core";
import { notebook } from "./fixture-flows.js";

export const flows = [notebook];

/** Every caller must send `x-user-id`. */
export const resolvePrincipal: PrincipalResolver = (context) => {
  const user = context.request?.headers["x-user-id"];
  return typeof user === "string" && user !== "" ? { userId: user } : null;
};
