// The flows module: what `createFlowHost({ flows })` and the page's typed client (`createFlowClient<typeof flows>`)
// take, and what `flowrt serve src/flows.ts` serves (with the resolver, the webhook providers and the inbound
// adapters below; the sign-in route and the page are the app's own, in `src/app.ts`).
import { mcpInbound } from "@flowrt/mcp";
import { boardFeedInbound } from "./board-feed/board-feed-inbound.js";
import { notebook } from "./flows/notebook.js";

export { resolvePrincipal } from "./auth/resolve-principal.js";
export { webhookProviders } from "./webhooks/providers.js";
export { notebook };
export const flows = [notebook];
/** The app's actions as MCP tools at `{basePath}/mcp`; the org board as a server-sent event stream. */
export const inbound = [mcpInbound(), boardFeedInbound()];
