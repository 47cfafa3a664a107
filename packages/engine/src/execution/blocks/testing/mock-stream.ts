import { simulateReadableStream } from "ai";
import type { MockLanguageModelV4 } from "ai/test";

/** A stream part of the language model v4 specification (its package is not a direct dependency). */
export type StreamResult = Awaited<ReturnType<MockLanguageModelV4["doStream"]>>;
export type LanguageModelV4StreamPart = StreamResult["stream"] extends ReadableStream<infer P> ? P : never;

/** Usage in the language model v4 shape, `input + output` tokens. */
export function usage(input: number, output: number) {
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}

/** One model step that streams `deltas` as text and stops. */
export function textStep(
  deltas: string[],
  tokens: { input: number; output: number } = { input: 3, output: 5 },
): StreamResult {
  const chunks: LanguageModelV4StreamPart[] = [
    { type: "text-start", id: "t" },
    ...deltas.map((delta): LanguageModelV4StreamPart => ({ type: "text-delta", id: "t", delta })),
    { type: "text-end", id: "t" },
    {
      type: "finish",
      finishReason: { unified: "stop", raw: undefined },
      usage: usage(tokens.input, tokens.output),
    },
  ];
  return { stream: simulateReadableStream({ chunks }) };
}

/** One model step that calls `toolName` with `input` (and may say something first). */
export function toolStep(
  toolCallId: string,
  toolName: string,
  input: unknown,
  tokens: { input: number; output: number } = { input: 3, output: 5 },
): StreamResult {
  const chunks: LanguageModelV4StreamPart[] = [
    { type: "tool-call", toolCallId, toolName, input: JSON.stringify(input) },
    {
      type: "finish",
      finishReason: { unified: "tool-calls", raw: undefined },
      usage: usage(tokens.input, tokens.output),
    },
  ];
  return { stream: simulateReadableStream({ chunks }) };
}
