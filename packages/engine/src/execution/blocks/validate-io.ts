import { type AnyBlock, type AnySchema, FlowError } from "@flowrt/core";

interface IssueSummary {
  path: string;
  message: string;
  code: string;
}

function pathOf(path: readonly PropertyKey[]): string {
  return path
    .map((segment) => (typeof segment === "symbol" ? segment.toString() : String(segment)))
    .join(".");
}

async function parseWith(
  schema: AnySchema,
  value: unknown,
  block: AnyBlock,
  which: "input" | "output",
): Promise<unknown> {
  const result = await schema.safeParseAsync(value);
  if (result.success) return result.data;
  const issues: IssueSummary[] = result.error.issues.map((issue) => ({
    path: pathOf(issue.path),
    message: issue.message,
    code: issue.code,
  }));
  const first = issues[0];
  // An empty path means the value as a whole is wrong (for example not an object at all).
  const field = first === undefined || first.path === "" ? undefined : first.path;
  const where = field === undefined ? "" : ` at field "${field}"`;
  throw new FlowError(
    which === "input" ? "invalid-input" : "invalid-output",
    `The ${which} of ${block.kind} "${block.name}" is invalid${where}: ${first?.message ?? "validation failed"}.`,
    { details: { block: block.name, ...(field === undefined ? {} : { field }), issues } },
  );
}

/** Parses a block's input through its `inputSchema` (when it has one); refuses with `invalid-input`. */
export function parseBlockInput(block: AnyBlock, input: unknown): Promise<unknown> {
  return block.inputSchema === undefined
    ? Promise.resolve(input)
    : parseWith(block.inputSchema, input, block, "input");
}

/** Parses a block's output through its `outputSchema` (when it has one); refuses with `invalid-output`. */
export function parseBlockOutput(block: AnyBlock, output: unknown): Promise<unknown> {
  return block.outputSchema === undefined
    ? Promise.resolve(output)
    : parseWith(block.outputSchema, output, block, "output");
}
