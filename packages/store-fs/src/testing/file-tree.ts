import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

/** Every file below `dir`, as absolute paths. */
export async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(full)));
    else out.push(full);
  }
  return out;
}

/**
 * The files below `dir` that a reader could not parse: a `.json` file must be one JSON document;
 * a JSON-lines file (`.jsonl`, `.log`) must end with a newline and hold one JSON value per line.
 */
export async function unreadableFiles(dir: string): Promise<string[]> {
  const bad: string[] = [];
  for (const file of await listFiles(dir)) {
    const text = await readFile(file, "utf8");
    try {
      if (file.endsWith(".json")) JSON.parse(text);
      else if (file.endsWith(".jsonl") || file.endsWith(".log")) {
        if (text !== "" && !text.endsWith("\n")) throw new Error("torn last line");
        for (const line of text.split("\n").slice(0, -1)) JSON.parse(line);
      } else throw new Error("unexpected file");
    } catch {
      bad.push(path.relative(dir, file));
    }
  }
  return bad;
}
