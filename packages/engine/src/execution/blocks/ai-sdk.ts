import { FlowError } from "@flowrt/core";
import type { Output, stepCountIs, streamText } from "ai";

/** The parts of the AI SDK (`ai`) a generator block runs on. */
export interface AiSdk {
  streamText: typeof streamText;
  Output: typeof Output;
  stepCountIs: typeof stepCountIs;
}

/** Imports the AI SDK; the default is Node's own `import("ai")`, resolved from this package. */
export type AiSdkImporter = () => Promise<AiSdk>;

const importAi: AiSdkImporter = () => import("ai");

/** The install hint, the same wherever it is told. */
export const AI_SDK_MISSING_HINT =
  "Generator blocks run on the AI SDK: install the `ai` package (an optional peer dependency of @flowrt/engine) " +
  "beside @flowrt/engine, for example `npm install ai`, and restart the host.";

let loaded: Promise<AiSdk> | undefined;

/**
 * The AI SDK, imported on the first generator run (never when no generator runs, so `ai` is an optional peer of
 * the engine). A failed import is not remembered (the next generator run tries again),
 * and it fails the run with an `internal-error` whose message names the package and how to install it:
 * the request record keeps the catalogue's text and an `errorId`, the message goes to the host's log.
 */
export function loadAiSdk(importer: AiSdkImporter = importAi): Promise<AiSdk> {
  if (importer !== importAi) return importWithHint(importer);
  loaded ??= importWithHint(importer).catch((error: unknown) => {
    loaded = undefined;
    throw error;
  });
  return loaded;
}

async function importWithHint(importer: AiSdkImporter): Promise<AiSdk> {
  try {
    return await importer();
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new FlowError("internal-error", `${AI_SDK_MISSING_HINT} Importing it failed: ${reason}`, {
      details: { package: "ai" },
      cause,
    });
  }
}
