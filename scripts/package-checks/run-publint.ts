import { readFileSync } from "node:fs";
import { publint } from "publint";
import { formatMessage } from "publint/utils";

/**
 * publint's findings on a packed tarball, strict (its warnings count as errors) at the `warning` level; its
 * suggestions are returned apart, since they are advice (an `exports` condition order, a `type` field …).
 */
export async function publintProblems(
  tarball: string,
): Promise<{ problems: string[]; suggestions: string[] }> {
  const data = readFileSync(tarball);
  const buffer = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer;
  const { messages, pkg } = await publint({ pack: { tarball: buffer }, level: "suggestion", strict: true });
  const text = (message: (typeof messages)[number]) =>
    `${message.type}: ${formatMessage(message, pkg, { color: false }) ?? message.code}`;
  return {
    problems: messages.filter((m) => m.type !== "suggestion").map(text),
    suggestions: messages.filter((m) => m.type === "suggestion").map(text),
  };
}
