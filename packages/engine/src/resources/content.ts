import { readFile } from "node:fs/promises";
import {
  type AnyResourceDefinition,
  type AnySingleResourceDefinition,
  type CollectionDefinition,
  clientPermissions,
  FlowError,
  type SingleResourceDefinition,
} from "@flowrt/core";
import { renderContentTemplate } from "./content-template.js";
import type { ResourceInstance } from "./resource-instance.js";

/** What content rendering needs from the request's resource scope. */
export interface TemplateSource {
  /** The template text a `contentTemplateRef` points at, read live (the referenced resource's body). */
  templateText(ref: AnySingleResourceDefinition | string, requester: string): Promise<string | null>;
}

// A contentFile is read once per definition, on first use, never at definition or request start.
const fileBodies = new WeakMap<object, Promise<string>>();

/** A single resource's initial body: `content`, else the `contentFile`, else `null`. */
export function initialContent(def: SingleResourceDefinition<any>, accessor: string): Promise<string | null> {
  if (def.content !== undefined) return Promise.resolve(def.content);
  const file = def.contentFilePath;
  if (file === undefined) return Promise.resolve(null);
  let body = fileBodies.get(def);
  if (body === undefined) {
    body = readFile(file, "utf8").catch((error: unknown) => {
      fileBodies.delete(def);
      throw new FlowError(
        "internal-error",
        `Resource "${accessor}" contentFile "${file}" could not be read: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    });
    fileBodies.set(def, body);
  }
  return body;
}

/**
 * Content as `readContent` returns it: rendered from state by `contentTemplateRef` or `contentTemplate`
 * (never read from the content row), else the stored body passed through `render`, else the stored body.
 */
export async function renderContent(
  source: TemplateSource,
  def: SingleResourceDefinition<any> | CollectionDefinition<any>,
  accessor: string,
  instance: ResourceInstance,
): Promise<string | null> {
  if (def.contentTemplateRef !== undefined) {
    const template = await source.templateText(def.contentTemplateRef, accessor);
    if (template === null) return null;
    return renderContentTemplate(accessor, template, await instance.currentState());
  }
  if (def.contentTemplate !== undefined) {
    return renderContentTemplate(accessor, def.contentTemplate, await instance.currentState());
  }
  const raw = await instance.readContentRaw();
  if (raw === null || def.render === undefined) return raw;
  return def.render(raw, await instance.currentState());
}

/**
 * The accessor a `contentTemplateRef` names: the string itself, else the accessor the definition is declared
 * under, else the definition's own `ref` or `name` (a template need not be declared beside the templated one).
 */
export function templateAccessor(
  ref: AnySingleResourceDefinition | string,
  declarations: Iterable<readonly [string, AnyResourceDefinition]>,
): string | undefined {
  if (typeof ref === "string") return ref;
  for (const [accessor, def] of declarations) if (def === ref) return accessor;
  return ref.ref ?? ref.name;
}

/**
 * Warnings for resources that render to clients through a `contentTemplateRef` the model may rewrite
 * (`llmWritable`): a template sees the whole state, so a rewritten one (a prompt injection, say) can show
 * clients fields their projection hides. One line per such resource, naming the flow, the resource and
 * the template.
 */
export function editableTemplateWarnings(
  flowId: string,
  declarations: Readonly<Record<string, AnyResourceDefinition>>,
): string[] {
  const warnings: string[] = [];
  for (const [accessor, def] of Object.entries(declarations)) {
    const ref = (def as { contentTemplateRef?: AnySingleResourceDefinition | string }).contentTemplateRef;
    if (ref === undefined) continue;
    const { read, prefetch } = clientPermissions(def).content;
    if (!read && !prefetch) continue;
    const template = typeof ref === "string" ? declarations[ref] : ref;
    if ((template as { llmWritable?: boolean } | undefined)?.llmWritable !== true) continue;
    const name = templateAccessor(ref, Object.entries(declarations)) ?? "(template)";
    warnings.push(
      `Flow "${flowId}": resource "${accessor}" renders its content for clients through contentTemplateRef "${name}", which the model may rewrite (llmWritable). A template sees the whole state, so a rewritten one can show clients fields the projection hides.`,
    );
  }
  return warnings;
}
