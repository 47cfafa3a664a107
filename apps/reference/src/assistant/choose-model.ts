import type { LanguageModelV4 } from "@ai-sdk/provider";
import { OfflineModel } from "./offline-model.js";

/**
 * The assistant's model, chosen here and only here. With `OPENAI_API_KEY` set it is OpenAI's
 * (`FLOWRT_OPENAI_MODEL`, default `gpt-4o-mini`) through `@ai-sdk/openai`, loaded only then (install it with
 * `pnpm --filter @flowrt/reference add @ai-sdk/openai`); otherwise the deterministic offline model, so the app and
 * its tests need no network or key. Another provider is one more branch with its AI SDK package.
 */
export async function chooseModel(env: NodeJS.ProcessEnv = process.env): Promise<LanguageModelV4> {
  if (env.OPENAI_API_KEY) {
    const packageName = "@ai-sdk/openai";
    let provider: { openai: (id: string) => LanguageModelV4 };
    try {
      provider = await import(packageName);
    } catch (error) {
      throw new Error(
        `OPENAI_API_KEY is set but ${packageName} cannot be loaded; install it with \`pnpm --filter @flowrt/reference add ${packageName}\` or unset the key to use the offline model.`,
        { cause: error },
      );
    }
    return provider.openai(env.FLOWRT_OPENAI_MODEL || "gpt-4o-mini");
  }
  return new OfflineModel();
}

export const model = await chooseModel();
