import { FlowError, type JsonObject } from "@flowrt/core";
import { Liquid, type Template } from "liquidjs";
import { parse as parseYaml } from "yaml";

/**
 * Templates may come from a live-editable resource, so the engine is locked down: no file access
 * (`templates: {}` makes `include`/`render`/`layout` look up an empty in-memory map), own properties
 * only, and bounded parse/render work so a hostile template cannot stall a request.
 */
const liquid = new Liquid({
  templates: {},
  ownPropertyOnly: true,
  strictFilters: true,
  parseLimit: 1_000_000,
  renderLimit: 2_000,
  memoryLimit: 16 * 1024 * 1024,
});

const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** The parts of a content template: YAML frontmatter (may be empty) and the Markdown body. */
export interface ParsedContentTemplate {
  frontmatterText: string | undefined;
  body: string;
}

export function splitFrontmatter(text: string): ParsedContentTemplate {
  const match = FRONTMATTER.exec(text);
  if (!match) return { frontmatterText: undefined, body: text };
  return { frontmatterText: match[1] ?? "", body: text.slice(match[0].length) };
}

const parsedCache = new Map<string, Template[]>();
const CACHE_LIMIT = 200;

function compile(source: string): Template[] {
  const cached = parsedCache.get(source);
  if (cached) return cached;
  const parsed = liquid.parse(source);
  if (parsedCache.size >= CACHE_LIMIT) parsedCache.delete(parsedCache.keys().next().value as string);
  parsedCache.set(source, parsed);
  return parsed;
}

/**
 * Renders a content template (Markdown with YAML frontmatter and a `<system>` body) from a state with
 * LiquidJS. The whole document is rendered, frontmatter included, so titles may use state; the rendered
 * frontmatter must be valid YAML, and its fields are available to the body as `frontmatter.<field>`.
 * State fields are top-level variables and also available as `state.<field>`.
 * @throws FlowError `internal-error` naming the resource when the template does not parse or render.
 */
export function renderContentTemplate(resource: string, template: string, state: JsonObject): string {
  try {
    const { frontmatterText, body } = splitFrontmatter(template);
    const scope: Record<string, unknown> = { ...state, state };
    if (frontmatterText === undefined) return liquid.renderSync(compile(body), scope) as string;
    const renderedFrontmatter = liquid.renderSync(compile(frontmatterText), scope) as string;
    const frontmatter = parseYaml(renderedFrontmatter) ?? {};
    const renderedBody = liquid.renderSync(compile(body), { ...scope, frontmatter }) as string;
    return `---\n${renderedFrontmatter}\n---\n${renderedBody}`;
  } catch (error) {
    throw new FlowError(
      "internal-error",
      `Resource "${resource}" content template could not be rendered: ${(error as Error).message}`,
      { cause: error },
    );
  }
}
