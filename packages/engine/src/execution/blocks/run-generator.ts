import { type AnyBlockContext, FlowError, type GeneratorBlock, type PromptSource } from "@flowrt/core";
import type { LanguageModel, TelemetryOptions, ToolSet } from "ai";
import { abortedError } from "./abort.js";
import { type AiSdkImporter, loadAiSdk } from "./ai-sdk.js";
import { type BlockRun, UNBOUND_CONTENT_TOOL } from "./block-run.js";
import { toJsonData } from "./json-data.js";
import { GeneratorTokens, tokensOf } from "./token-accounting.js";

async function resolvePrompt(source: PromptSource, input: unknown, ctx: AnyBlockContext): Promise<string> {
  const text = typeof source === "function" ? await source(input, ctx) : source;
  if (typeof text !== "string") {
    throw new TypeError(
      `A prompt function returned ${typeof text}; prompts and system messages must be strings.`,
    );
  }
  return text;
}

/**
 * The definition's own tools over the generic content tools: an explicit tool wins a name clash. An own
 * tool made without a scope (`readResourceContentTool()`) is replaced by its form bound to this run.
 */
function toolsFor(block: GeneratorBlock, run: BlockRun): ToolSet | undefined {
  const own: Record<string, unknown> =
    typeof block.tools === "function" ? block.tools(run.ctx) : (block.tools ?? {});
  const tools: Record<string, unknown> = { ...(block.contentTools ? run.contentTools() : {}), ...own };
  for (const name of Object.keys(own)) {
    const bound = (own[name] as { [UNBOUND_CONTENT_TOOL]?: string } | undefined)?.[UNBOUND_CONTENT_TOOL];
    if (bound !== undefined) tools[name] = run.contentTools()[bound];
  }
  return Object.keys(tools).length === 0 ? undefined : (tools as ToolSet);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs a generator block on the AI SDK's `streamText`: up to `maxSteps` model round trips with the
 * block's tools, text deltas and tool calls/results emitted as stream events, usage charged to the token
 * budgets after every step, and `abortSignal` tied to the run. Returns the final text, or the parsed
 * object when the block has an `outputSchema`. The SDK is imported here, on first use (`importAi` replaces
 * that import, for tests).
 */
export async function runGenerator(
  block: GeneratorBlock,
  input: unknown,
  run: BlockRun,
  importAi?: AiSdkImporter,
): Promise<unknown> {
  const tokens = new GeneratorTokens(block.name, run.budget, block.tokenBudget);
  tokens.assertCanStart();
  const { Output, stepCountIs, streamText } = await loadAiSdk(importAi);
  const ctx = run.ctx;
  const prompt = await resolvePrompt(block.prompt, input, ctx);
  const instructions = block.system === undefined ? undefined : await resolvePrompt(block.system, input, ctx);
  const user = typeof block.user === "function" ? block.user(ctx) : block.user;
  const where = `generator "${block.name}"`;

  const result = streamText({
    model: block.model as LanguageModel,
    ...(instructions === undefined ? {} : { instructions }),
    prompt,
    tools: toolsFor(block, run),
    // A budget used up (or passed) after a step ends the loop before the next model call; the error, if any,
    // is thrown below.
    stopWhen: [stepCountIs(block.maxSteps), () => tokens.spent()],
    abortSignal: run.signal,
    // There is no provider-neutral end-user field; OpenAI's `user` is the one the definition documents.
    ...(typeof user === "string" && user !== "" ? { providerOptions: { openai: { user } } } : {}),
    ...(block.outputSchema === undefined ? {} : { output: Output.object({ schema: block.outputSchema }) }),
    // The host's AI SDK telemetry settings; its spans nest under this block's span, the active one here.
    ...(run.aiTelemetry === undefined
      ? {}
      : { telemetry: { functionId: block.name, ...(run.aiTelemetry as TelemetryOptions) } }),
    onStepEnd: (step) => tokens.charge(tokensOf(step.usage)),
    // The SDK's default prints the error and its stack with console.error. It reaches the loop below as an
    // `error` part and fails the request; the application's logger is where it is told.
    onError: ({ error }) => ctx.log.warn(`${where}: the model stream failed`, { error: messageOf(error) }),
  });

  let aborted = false;
  try {
    for await (const part of result.stream) {
      switch (part.type) {
        case "text-delta":
          if (part.text !== "") await run.emit("text.delta", { delta: part.text });
          break;
        case "tool-call":
          await run.emit("tool.call", {
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            input: toJsonData(part.input),
          });
          break;
        case "tool-result":
          await run.emit("tool.result", {
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            output: toJsonData(part.output),
          });
          break;
        case "tool-error":
          // The SDK hands the error back to the model, which may recover; the stream shows it as the result.
          await run.emit("tool.result", {
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            error: messageOf(part.error),
          });
          break;
        case "abort":
          aborted = true;
          break;
        case "error":
          throw part.error;
      }
    }
  } catch (error) {
    if (run.signal.aborted) throw abortedError(where, run.signal.reason);
    throw error;
  }
  if (aborted || run.signal.aborted) throw abortedError(where, run.signal.reason);
  const exceeded = tokens.exceededError();
  if (exceeded !== undefined) throw exceeded;

  const steps = await result.steps;
  const last = steps.at(-1);
  // Stopped by a budget used up exactly while the model still called tools: its work is unfinished.
  if (last !== undefined && last.finishReason === "tool-calls" && tokens.spent()) throw tokens.stoppedError();
  if (last !== undefined && last.finishReason === "tool-calls" && steps.length >= block.maxSteps) {
    throw new FlowError(
      "step-limit-exceeded",
      `Generator "${block.name}" reached its limit of ${block.maxSteps} steps while the model was still calling tools.`,
      { details: { block: block.name, maxSteps: block.maxSteps } },
    );
  }
  if (block.outputSchema === undefined) return last?.text ?? "";
  try {
    return await result.output;
  } catch (error) {
    throw new FlowError(
      "invalid-output",
      `The output of generator "${block.name}" is not an object matching its outputSchema: ${messageOf(error)}`,
      { details: { block: block.name }, cause: error },
    );
  }
}
