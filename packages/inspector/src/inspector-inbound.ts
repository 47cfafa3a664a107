import { DefinitionError, FlowError, isFlowError } from "@flowrt/core";
import {
  type FlowHost,
  type InboundAdapter,
  type InboundRequestInfo,
  type InboundRoute,
  statusForError,
} from "@flowrt/engine";
import { InspectorApi } from "./inspector-api.js";
import { guardInspector } from "./inspector-guard.js";
import { jsonAnswer, problemAnswer } from "./inspector-problem.js";
import { loadStaticAssets, type StaticAsset } from "./static-assets.js";

export interface InspectorInboundOptions {
  /** Where the page is served, relative to the host's `basePath`. @default "/_inspector" */
  path?: string;
}

/** The custom inbound source the inspector's routes are logged under. */
export const INSPECTOR_SOURCE = "inspector";

function isFlowHost(value: unknown): value is FlowHost {
  const host = value as Partial<FlowHost> | null;
  return (
    typeof host?.inspect === "function" && typeof host.basePath === "string" && host.registry !== undefined
  );
}

/** A client's refusal (4xx) as its problem; anything else is thrown on, for the engine to log and answer 500. */
function refusal(error: unknown): Response {
  if (isFlowError(error) && statusForError(error) < 500) return problemAnswer(error);
  throw error;
}

function escapeAttribute(value: string): string {
  return value.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");
}

function assetAnswer(asset: StaticAsset, body = asset.body): Response {
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": asset.type,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      // The page loads only its own files and talks only to its own origin.
      "content-security-policy":
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'",
    },
  });
}

/**
 * The development inspector as a custom inbound adapter: a static page at `{basePath}/_inspector` and the
 * read-only JSON routes it reads under `{basePath}/_inspector/api/`, served by every HTTP adapter of the host.
 * It binds no route unless the host's inspector is on (`createFlowHost({ inspector: true })`, or
 * `NODE_ENV=development` without the option), so on other hosts its paths are unknown routes (404).
 *
 * @example
 * const host = createFlowHost({ flows, stores, inspector: true, inbound: [inspectorInbound()] });
 * app.use(createFlowRouter(host)); // the inspector at /api/flows/_inspector
 */
export function inspectorInbound(options: InspectorInboundOptions = {}): InboundAdapter {
  const relative = options.path ?? "/_inspector";
  return {
    source: INSPECTOR_SOURCE,
    createBindings(host) {
      if (!isFlowHost(host))
        throw new DefinitionError("inspectorInbound() must be given to createFlowHost({ inbound }).");
      if (!relative.startsWith("/") || relative.length < 2 || relative.endsWith("/")) {
        throw new DefinitionError(
          `inspectorInbound({ path }) must start with "/" and not end with one, got ${JSON.stringify(relative)}.`,
        );
      }
      if (!host.inspector) return { routes: [] };
      const root = `${host.basePath}${relative}`;
      const assets = loadStaticAssets();
      const api = new InspectorApi(host);
      const html = assets.get("index.html")!;
      const page = html.body
        .replaceAll("__FLOWRT_API__", escapeAttribute(host.basePath))
        .replaceAll("__FLOWRT_INSPECTOR__", escapeAttribute(root));

      /** A JSON route: the guard first (nothing is read for a caller it refuses), then the read. */
      const guarded =
        (
          read: (
            caller: Awaited<ReturnType<typeof guardInspector>>,
            request: Request,
          ) => Promise<unknown> | unknown,
        ) =>
        async (request: Request, info: InboundRequestInfo = {}): Promise<Response> => {
          try {
            const caller = await guardInspector(host, request, info);
            return jsonAnswer(await read(caller, request));
          } catch (error) {
            return refusal(error);
          }
        };
      /** The page's files carry no data, but they are guarded too: a refused caller sees no inspector at all. */
      const file =
        (asset: StaticAsset, body?: string) =>
        async (request: Request, info: InboundRequestInfo = {}): Promise<Response> => {
          try {
            await guardPage(host, request, info);
            return assetAnswer(asset, body);
          } catch (error) {
            return refusal(error);
          }
        };
      /** The route's last segment (`:sessionId`, `:requestId`), as the client encoded it. */
      const param = (request: Request) => {
        try {
          return decodeURIComponent(new URL(request.url).pathname.split("/").at(-1) ?? "");
        } catch {
          throw new FlowError("invalid-request", "The id in the path is not valid percent-encoding.");
        }
      };
      const query = (request: Request) => new URL(request.url).searchParams;

      const routes: InboundRoute[] = [
        { method: "GET", path: root, handler: file(html, page) },
        { method: "GET", path: `${root}/inspector.js`, handler: file(assets.get("inspector.js")!) },
        { method: "GET", path: `${root}/inspector.css`, handler: file(assets.get("inspector.css")!) },
        { method: "GET", path: `${root}/api/flows`, handler: guarded(() => api.flows()) },
        {
          method: "GET",
          path: `${root}/api/sessions`,
          handler: guarded((caller, request) => api.sessions(caller, query(request))),
        },
        {
          method: "GET",
          path: `${root}/api/sessions/:sessionId`,
          handler: guarded((caller, request) => api.session(caller, param(request))),
        },
        {
          method: "GET",
          path: `${root}/api/requests`,
          handler: guarded((caller, request) => api.requests(caller, query(request))),
        },
        {
          method: "GET",
          path: `${root}/api/requests/:requestId`,
          handler: guarded((caller, request) => api.request(caller, param(request))),
        },
      ];
      return { routes };
    },
  };
}

/**
 * The page itself asks for no principal when a resolver is configured (a browser sends its token only from the
 * page's script, which then meets the JSON routes' guard); with none configured it is loopback only, as they are.
 */
async function guardPage(host: FlowHost, request: Request, info: InboundRequestInfo): Promise<void> {
  const governed = host.registry.flows.some((flow) => host.access.hasResolver(flow));
  if (!governed) await guardInspector(host, request, info);
}
