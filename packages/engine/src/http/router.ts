import { FlowError } from "@flowrt/core";
import type { RouteDoc } from "./route-doc.js";
import type { HttpRequest, HttpResponse } from "./types.js";

export type RouteParams = Record<string, string>;

export interface Route<TContext> {
  method: string;
  /**
   * Segments separated by `/`: literals, `:name` (one segment, percent-decoded) and a final `*name`
   * (one or more segments, each decoded, joined with `/`), optionally followed by literal segments.
   */
  path: string;
  /** What the OpenAPI document says of the route (generated from these, see `openapi.ts`). */
  doc: RouteDoc;
  /**
   * A health probe (`/healthz`, `/readyz`): answered as the host is, without starting a host that was never started
   * first (the readiness probe starts one itself, within its timeout), and without any principal.
   */
  probe?: true;
  handler: (request: HttpRequest, params: RouteParams, context: TContext) => Promise<HttpResponse>;
}

interface CompiledRoute<TContext> extends Route<TContext> {
  segments: string[];
  wildcard: number;
}

function decodeSegment(segment: string): string {
  if (!segment.includes("%")) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new FlowError("invalid-request", "The path has a malformed percent-encoding.");
  }
}

/** The request part a route segment at index `i` lines up with (segments after a wildcard count from the end). */
function partAt(
  route: { segments: string[]; wildcard: number },
  parts: readonly string[],
  i: number,
): string {
  const { segments, wildcard } = route;
  return wildcard >= 0 && i > wildcard ? parts[parts.length - (segments.length - i)]! : parts[i]!;
}

function matchRoute<T>(route: CompiledRoute<T>, parts: string[]): RouteParams | null {
  const { segments, wildcard } = route;
  if (wildcard < 0) {
    if (parts.length !== segments.length) return null;
  } else if (parts.length < segments.length) {
    return null;
  }
  // Literals and empty segments first, so that a route that does not match allocates and decodes nothing.
  for (let i = 0; i < segments.length; i++) {
    if (i === wildcard) continue;
    const seg = segments[i]!;
    const part = partAt(route, parts, i);
    if (seg.startsWith(":") ? part === "" : seg !== part) return null;
  }
  const params: RouteParams = {};
  const tailLength = wildcard < 0 ? 0 : segments.length - wildcard - 1;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    if (i === wildcard) {
      const taken = parts.slice(i, parts.length - tailLength);
      if (taken.length === 0 || taken.some((p) => p === "")) return null;
      params[seg.slice(1)] = taken.map(decodeSegment).join("/");
    } else if (seg.startsWith(":")) {
      params[seg.slice(1)] = decodeSegment(partAt(route, parts, i));
    }
  }
  return params;
}

/**
 * A small route table over transport-neutral requests. Routes are tried in the order given, so a
 * more specific route (e.g. `…/:ref/content`) is listed before the wildcard it shadows.
 */
export class RouteTable<TContext> {
  private readonly routes: CompiledRoute<TContext>[];
  /** The same routes by method, in order (HEAD is served by the GET routes). */
  private readonly byMethod = new Map<string, CompiledRoute<TContext>[]>();

  constructor(routes: readonly Route<TContext>[]) {
    this.routes = routes.map((route) => {
      const segments = route.path.split("/").filter((s) => s !== "");
      return { ...route, segments, wildcard: segments.findIndex((s) => s.startsWith("*")) };
    });
    for (const route of this.routes) {
      const list = this.byMethod.get(route.method) ?? [];
      list.push(route);
      this.byMethod.set(route.method, list);
    }
  }

  /** The matching route, or which methods the path allows (405) or `null` (404). */
  match(
    method: string,
    path: string,
  ): { route: Route<TContext>; params: RouteParams } | { allowed: string[] } | null {
    const parts = path.split("/").slice(1);
    if (parts.length > 0 && parts[parts.length - 1] === "") parts.pop();
    // The first route of this method that matches wins, as in declaration order over all routes.
    for (const route of this.byMethod.get(method === "HEAD" ? "GET" : method) ?? []) {
      const params = matchRoute(route, parts);
      if (params) return { route, params };
    }
    const allowed = new Set<string>();
    for (const route of this.routes) if (matchRoute(route, parts)) allowed.add(route.method);
    return allowed.size > 0 ? { allowed: [...allowed] } : null;
  }
}
