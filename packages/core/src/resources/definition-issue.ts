import { DefinitionError } from "../errors.js";

/**
 * How a definition names itself in error messages: its `name` when given, else a collection's pattern, else
 * plain `Resource` (the runtime names a resource by its accessor only when a flow registers it).
 */
export function resourceLabel(name: string | undefined, pattern?: string): string {
  if (name !== undefined) return `Resource "${name}"`;
  if (pattern !== undefined) return `Resource "${pattern}"`;
  return "Resource";
}

/**
 * Throws the {@link DefinitionError} of one refused option. The message reads
 * `<label>: <problem>. <fix>` so that it always names the resource, the option and the way out.
 */
export function refuseOption(label: string, option: string, problem: string, fix: string): never {
  // `details.resource` carries the bare name (or pattern) for programmatic use; undefined when unnamed.
  const resource = /^Resource "(.*)"$/s.exec(label)?.[1];
  throw new DefinitionError(`${label}: ${problem}. ${fix}`, { resource, option });
}

/** `a`, `a or b`, `a, b or c`: for the lists of accepted values in messages. */
export function listOf(values: readonly string[], quote = true): string {
  const shown = quote ? values.map((v) => `"${v}"`) : [...values];
  if (shown.length <= 1) return shown.join("");
  return `${shown.slice(0, -1).join(", ")} or ${shown.at(-1)}`;
}

/** A short, safe rendering of an unexpected value for messages. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value === undefined) return "undefined";
  // A zod schema of the wrong kind says which kind it is ("a zod string schema"), not just "an object".
  const zodType = (value as { _zod?: { def?: { type?: unknown } } })._zod?.def?.type;
  if (typeof zodType === "string") return `a zod ${zodType} schema`;
  const kind = typeof value;
  return `${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind}`;
}
