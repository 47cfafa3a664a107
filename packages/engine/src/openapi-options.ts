import type { OpenApiInfo, OpenApiOptions, OpenApiSecurityScheme } from "./host-options.js";

/** The `openapi` host option, checked, with each security scheme's component name. */
export interface ResolvedOpenApiOptions {
  /** Component name → OpenAPI security scheme object, in the order given. */
  securitySchemes: Readonly<Record<string, object>>;
  info: OpenApiInfo;
}

/** What a host documents without an `openapi` option: the resolver reads a bearer token. */
export const DEFAULT_SECURITY: readonly OpenApiSecurityScheme[] = [{ type: "http", scheme: "bearer" }];

const HTTP_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/;
/** What an OpenAPI component name may hold; anything else in a header or cookie name becomes `_`. */
const NOT_IN_COMPONENT_NAME = /[^A-Za-z0-9._-]/g;

/**
 * A scheme's component name, readable in a generated client: `bearerAuth`, `basicAuth`, `header.x-api-key`,
 * `cookie.session`, `query.api_key`.
 */
function schemeName(scheme: OpenApiSecurityScheme): string {
  return scheme.type === "http"
    ? `${scheme.scheme.toLowerCase()}Auth`
    : `${scheme.in}.${scheme.name.replace(NOT_IN_COMPONENT_NAME, "_")}`;
}

function schemeObject(scheme: OpenApiSecurityScheme, where: string): object {
  const description = scheme.description !== undefined ? { description: String(scheme.description) } : {};
  if (scheme.type === "http") {
    if (typeof scheme.scheme !== "string" || !HTTP_SCHEME.test(scheme.scheme))
      throw new TypeError(
        `${where}.scheme must be an HTTP authentication scheme such as "bearer" or "basic".`,
      );
    const bearer = scheme.scheme.toLowerCase() === "bearer";
    if (scheme.bearerFormat !== undefined && (!bearer || typeof scheme.bearerFormat !== "string"))
      throw new TypeError(`${where}.bearerFormat is a string, and only for the "bearer" scheme.`);
    return {
      type: "http",
      scheme: scheme.scheme.toLowerCase(),
      ...(scheme.bearerFormat !== undefined ? { bearerFormat: scheme.bearerFormat } : {}),
      ...description,
    };
  }
  if (scheme.type === "apiKey") {
    if (scheme.in !== "header" && scheme.in !== "cookie" && scheme.in !== "query")
      throw new TypeError(`${where}.in must be "header", "cookie" or "query".`);
    if (typeof scheme.name !== "string" || scheme.name === "")
      throw new TypeError(`${where}.name must name the ${scheme.in} that carries the key.`);
    return { type: "apiKey", in: scheme.in, name: scheme.name, ...description };
  }
  throw new TypeError(`${where}.type must be "http" or "apiKey".`);
}

/**
 * Checks the `openapi` option of `createFlowHost` (a `TypeError` naming the faulty entry, at construction, as for
 * the other options) and names each security scheme. Two entries that would get one name are refused.
 */
export function resolveOpenApiOptions(options: OpenApiOptions | undefined): ResolvedOpenApiOptions {
  const security = options?.security ?? DEFAULT_SECURITY;
  if (!Array.isArray(security)) throw new TypeError("createFlowHost: openapi.security must be an array.");
  const securitySchemes: Record<string, object> = {};
  security.forEach((scheme: OpenApiSecurityScheme, index) => {
    const where = `createFlowHost: openapi.security[${index}]`;
    if (typeof scheme !== "object" || scheme === null) throw new TypeError(`${where} must be an object.`);
    const object = schemeObject(scheme, where);
    const name = schemeName(scheme);
    if (name in securitySchemes) throw new TypeError(`${where} repeats the scheme "${name}".`);
    securitySchemes[name] = object;
  });
  const info = options?.info ?? {};
  if (typeof info !== "object" || info === null)
    throw new TypeError("createFlowHost: openapi.info must be an object.");
  return { securitySchemes, info };
}
