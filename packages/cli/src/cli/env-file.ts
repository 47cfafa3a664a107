import { readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { UsageError } from "./store-spec.js";

/**
 * `--env-file <path>`: reads `KEY=value` lines (the dotenv format Node's own `--env-file` reads, parsed by
 * `util.parseEnv`) into `env`. A variable the environment already sets is kept, as Node and dotenv do: the file
 * holds defaults for a machine, the environment (a container's, a CI job's) says what differs.
 */
export function loadEnvFile(path: string, env: NodeJS.ProcessEnv): string[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new UsageError(
      code === "ENOENT"
        ? `--env-file ${path}: no such file.`
        : `--env-file ${path}: cannot read it (${String(code)}).`,
    );
  }
  const loaded: string[] = [];
  for (const [key, value] of Object.entries(parseEnv(text))) {
    if (env[key] !== undefined) continue;
    env[key] = value;
    loaded.push(key);
  }
  return loaded;
}
