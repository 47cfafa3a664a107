import type { z } from "zod";

/**
 * A content tool as the AI SDK takes it (the object its `tool()` helper returns): a description, a zod input
 * schema and `execute`. Typed here by its shape so that the engine's types need no `ai` installed; it fits the
 * SDK's `Tool`, so a content tool can go in a generator's `tools` or in the SDK's own calls.
 */
export interface ContentTool<INPUT = any, OUTPUT = any> {
  description: string;
  inputSchema: z.ZodType<INPUT>;
  /** Runs the tool; the AI SDK passes its call options second, which content tools do not read. */
  execute: (input: INPUT, options?: unknown) => Promise<OUTPUT>;
}

/** A content tool; the identity, as the AI SDK's `tool()` is, for the inference of `execute`'s input. */
export function contentTool<INPUT, OUTPUT>(
  definition: ContentTool<INPUT, OUTPUT>,
): ContentTool<INPUT, OUTPUT> {
  return definition;
}
