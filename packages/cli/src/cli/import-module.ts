import { extname } from "node:path";
import { pathToFileURL } from "node:url";
import { UsageError } from "./store-spec.js";

const TYPESCRIPT_EXTENSIONS = new Set([".ts", ".mts", ".cts"]);

/**
 * What Node's own TypeScript support cannot load that tsx can: TypeScript-only syntax (`enum`, `namespace`,
 * parameter properties), and an import written as the compiled file (`./tools.js` for `./tools.ts`), which Node
 * resolves as written. Both fail before any of the module's code runs, so loading it again through tsx is safe.
 */
const TSX_CAN_LOAD = new Set(["ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX", "ERR_MODULE_NOT_FOUND"]);

const INSTALL_TSX = "install tsx beside @flowrt/cli (`npm install --save-dev tsx`)";

/** Whether the running Node strips types itself (on by default from 22.18 and 23.6; 22.6 on with a flag). */
export function nodeStripsTypes(): boolean {
  const typescript = (process.features as { typescript?: unknown }).typescript;
  return typescript === "strip" || typescript === "transform";
}

type TsxApi = { tsImport: (specifier: string, parentURL: string) => Promise<unknown> };

/** tsx's API, or `undefined` when tsx is not installed (it is an optional peer dependency of the CLI). */
async function importTsx(): Promise<TsxApi | undefined> {
  try {
    return (await import("tsx/esm/api")) as TsxApi;
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (code === "ERR_MODULE_NOT_FOUND" && typeof message === "string" && message.includes("'tsx"))
      return undefined;
    throw error;
  }
}

async function throughTsx(url: string, tsx: TsxApi): Promise<Record<string, unknown>> {
  return (await tsx.tsImport(url, import.meta.url)) as Record<string, unknown>;
}

/**
 * Imports a flows module. JavaScript loads as it is. TypeScript loads through Node's own type stripping where the
 * running Node has it, and through tsx (an optional peer) where it does not, or where the module needs more than
 * stripping; with neither, a {@link UsageError} names both ways to load it.
 */
export async function importModule(file: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(file).href;
  if (!TYPESCRIPT_EXTENSIONS.has(extname(file))) return (await import(url)) as Record<string, unknown>;
  if (nodeStripsTypes()) {
    try {
      return (await import(url)) as Record<string, unknown>;
    } catch (error) {
      if (!TSX_CAN_LOAD.has((error as { code?: unknown }).code as string)) throw error;
      const tsx = await importTsx();
      if (tsx !== undefined) return throughTsx(url, tsx);
      throw new UsageError(
        `Node could not load ${file} by stripping its types: ${(error as Error).message}. Node loads only erasable ` +
          "TypeScript (no enum, namespace or parameter properties), with imports written as the files are named " +
          `(./tools.ts, not ./tools.js); to load this module as it is, ${INSTALL_TSX}.`,
        { cause: error },
      );
    }
  }
  const tsx = await importTsx();
  if (tsx !== undefined) return throughTsx(url, tsx);
  throw new UsageError(
    `${file} is TypeScript, and Node ${process.version} here does not strip types. Either run flowrt on a Node ` +
      "that does (22.18 or later, 23.6 or later: on by default unless --no-experimental-strip-types; 22.6 to 22.17 " +
      `with NODE_OPTIONS=--experimental-strip-types), or ${INSTALL_TSX}.`,
  );
}
