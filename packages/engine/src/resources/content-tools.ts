import { posix } from "node:path";
import { createContext, Script } from "node:vm";
import { type AnyResourceDefinition, FlowError, isFlowError, parseResourceUri } from "@flowrt/core";
import { z } from "zod";
import { UNBOUND_CONTENT_TOOL } from "../execution/blocks/block-run.js";
import { CollectionRuntime } from "./collection.js";
import { type ContentTool, contentTool } from "./content-tool.js";
import { ExternalCollectionRuntime } from "./external-collection.js";
import type { ResourceScope } from "./resource-scope.js";
import { SingleResourceRuntime } from "./single-resource.js";

/** Results per tool call are capped so one call cannot flood the model's context. */
const MAX_RESULTS = 200;

/**
 * The regular-expression time one `grepResourceContent` call may spend, over all the content it searches. The
 * pattern comes from the model (and so from whatever text steered it): a catastrophically backtracking one
 * would otherwise hold the event loop, and every request on the host, for seconds or hours.
 */
export const GREP_TIME_BUDGET_MS = 500;

/**
 * Line matching runs in its own context so that it can be stopped: V8 interrupts a regular expression
 * that runs past a `vm` timeout. The context holds only what one search sets on it.
 */
const grepContext = createContext(Object.create(null) as Record<string, unknown>);
const grepLines = new Script(`{
  const hits = [];
  for (let i = 0; i < lines.length && hits.length < limit; i++) if (regex.test(lines[i])) hits.push(i);
  hits;
}`);

/** Indexes of the lines `regex` matches (at most `limit`), within `timeoutMs`; `null` when time ran out. */
function matchLines(regex: RegExp, lines: string[], limit: number, timeoutMs: number): number[] | null {
  Object.assign(grepContext, { regex, lines, limit });
  try {
    return grepLines.runInContext(grepContext, { timeout: Math.max(1, Math.ceil(timeoutMs)) }) as number[];
  } catch (error) {
    if ((error as { code?: unknown }).code === "ERR_SCRIPT_EXECUTION_TIMEOUT") return null;
    throw error;
  } finally {
    Object.assign(grepContext, { regex: undefined, lines: undefined });
  }
}

type Access = "read" | "write";

function allows(def: AnyResourceDefinition, access: Access): boolean {
  if (access === "read") return def.llmReadable === true;
  return def.type !== "external" && (def as { llmWritable?: boolean }).llmWritable === true;
}

function unreachable(uri: string, access: Access): FlowError {
  return new FlowError(
    "resource-not-found",
    `No resource at "${uri}" is ${access === "read" ? "readable" : "writable"} by tools (it needs llm${access === "read" ? "Readable" : "Writable"}: true).`,
  );
}

/** A tool reports refusals to the model as data, so that it can correct itself. */
async function guarded<T>(run: () => Promise<T>): Promise<T | { error: string }> {
  try {
    return await run();
  } catch (error) {
    if (isFlowError(error)) return { error: error.message };
    throw error;
  }
}

/** The runtime a `uri` addresses, if it is reachable with this access. */
function locate(scope: ResourceScope, uri: string, access: Access) {
  const parsed = parseResourceUri(uri);
  if (parsed === undefined)
    throw new FlowError("invalid-request", `"${uri}" is not a resource uri (expected "<scope>/<path>").`);
  // Why a resource of the uri's scope that the tools could reach is not there (an org resource in a session
  // bound to no org): a truer answer than "needs llmReadable".
  let unavailable: FlowError | undefined;
  for (const accessor of scope.accessors()) {
    const runtime = scope.runtime(accessor);
    if (runtime === undefined) {
      const def = scope.definition(accessor);
      if (def !== undefined && def.scope === parsed.scope && allows(def, access))
        unavailable ??= scope.unavailable(accessor);
      continue;
    }
    if (runtime.def.scope !== parsed.scope || !allows(runtime.def, access)) continue;
    if (runtime instanceof SingleResourceRuntime) {
      if (runtime.handle.path === parsed.path) return { runtime, path: parsed.path };
    } else if (runtime.def.compiledPattern.matches(parsed.path)) {
      return { runtime, path: parsed.path };
    }
  }
  throw unavailable ?? unreachable(uri, access);
}

/**
 * Whether a uri matches a glob written either way: over the whole uri (`session/files/**`) or, without its
 * scope, over the path (`files/**`, in every scope).
 */
function uriMatches(uri: string, pattern: string): boolean {
  return posix.matchesGlob(uri, pattern) || posix.matchesGlob(uri.slice(uri.indexOf("/") + 1), pattern);
}

/** Every readable stored resource (externals skipped: they are not enumerable), as `[uri, read]`. */
async function readableEntries(
  scope: ResourceScope,
): Promise<{ uri: string; ref: string; read: () => Promise<string | null> }[]> {
  const out: { uri: string; ref: string; read: () => Promise<string | null> }[] = [];
  for (const accessor of scope.accessors()) {
    const runtime = scope.runtime(accessor);
    if (runtime === undefined || !allows(runtime.def, "read")) continue;
    if (runtime instanceof SingleResourceRuntime) {
      out.push({ uri: runtime.handle.uri, ref: accessor, read: () => runtime.handle.readContent() });
    } else if (runtime instanceof CollectionRuntime) {
      for (const instance of await runtime.scan())
        out.push({ uri: instance.uri, ref: accessor, read: () => instance.readContent() });
    }
  }
  return out;
}

/** A tool made without a scope: the run binds it; called outside a generator, it says so. */
function unboundTool(
  name: "readResourceContent" | "writeResourceContent",
  made: (scope: ResourceScope) => ContentTool,
): ContentTool {
  const refuse: ResourceScope = new Proxy({} as ResourceScope, {
    get() {
      throw new FlowError(
        "invalid-request",
        `${name}Tool() without a scope is bound to a request when a generator block runs it; outside one, pass the scope.`,
      );
    },
  });
  const unbound = made(refuse);
  Object.defineProperty(unbound, UNBOUND_CONTENT_TOOL, { value: name });
  return unbound;
}

/**
 * `readResourceContent`: the rendered content at a uri (`llmReadable` resources only; externals read through
 * `read`). Without `scope` (`readResourceContentTool()`, as a generator's tool) it reads the resources of the
 * request that runs the generator.
 */
export function readResourceContentTool(scope?: ResourceScope): ContentTool {
  if (scope === undefined) return unboundTool("readResourceContent", readResourceContentTool);
  return contentTool({
    description: "Read the content of a resource by its uri (for example session/notes/today.md).",
    inputSchema: z.object({ uri: z.string().describe("The resource uri: <scope>/<path>") }),
    execute: ({ uri }) =>
      guarded(async () => {
        const { runtime, path } = locate(scope, uri, "read");
        if (runtime instanceof SingleResourceRuntime)
          return { uri, content: await runtime.handle.readContent() };
        if (runtime instanceof ExternalCollectionRuntime) {
          // A record without a content template has no body: the model reads its (validated) state instead.
          const record = await runtime.handle.get(path);
          const content = await record.readContent();
          return content === null ? { uri, content, state: record.state } : { uri, content };
        }
        return { uri, content: await (await runtime.handle.get(path)).readContent() };
      }),
  });
}

/**
 * `writeResourceContent`: replaces the content at a uri (`llmWritable` only); a collection item is created if
 * missing. Without `scope` it writes in the request that runs the generator, as {@link readResourceContentTool}.
 */
export function writeResourceContentTool(scope?: ResourceScope): ContentTool {
  if (scope === undefined) return unboundTool("writeResourceContent", writeResourceContentTool);
  return contentTool({
    description:
      "Replace the content of a resource by its uri. Creates the collection item when it does not exist.",
    inputSchema: z.object({ uri: z.string(), content: z.string() }),
    execute: ({ uri, content }) =>
      guarded(async () => {
        const { runtime, path } = locate(scope, uri, "write");
        if (runtime instanceof SingleResourceRuntime) await runtime.handle.writeContent(content);
        else if (runtime instanceof CollectionRuntime)
          await (await runtime.handle.getOrCreate(path)).writeContent(content);
        return { uri, written: true };
      }),
  });
}

/**
 * The generic content tools for generators, keyed by tool name. They address resources by `uri` and reach
 * only resources whose `llmReadable` (`llmWritable` for writes) is `true`. `searchResources` routes to an
 * external collection's `search` hook; `globResources` and `grepResourceContent` skip external collections.
 */
export function createContentTools(scope: ResourceScope): Record<string, ContentTool> {
  return {
    readResourceContent: readResourceContentTool(scope),
    writeResourceContent: writeResourceContentTool(scope),
    globResources: contentTool({
      description:
        "List resource uris matching a glob pattern, over the uri (session/files/**/*.md) or the path in any scope (files/**/*.md).",
      inputSchema: z.object({ pattern: z.string() }),
      execute: ({ pattern }) =>
        guarded(async () => {
          const uris = (await readableEntries(scope))
            .map((e) => e.uri)
            .filter((uri) => uriMatches(uri, pattern));
          return { uris: uris.slice(0, MAX_RESULTS), truncated: uris.length > MAX_RESULTS };
        }),
    }),
    grepResourceContent: contentTool({
      description: "Search resource contents with a regular expression; returns matching lines.",
      inputSchema: z.object({
        pattern: z.string().describe("A JavaScript regular expression"),
        uriGlob: z.string().optional().describe("Only resources whose uri matches this glob"),
        ignoreCase: z.boolean().optional(),
      }),
      execute: ({ pattern, uriGlob, ignoreCase }) =>
        guarded(async () => {
          let regex: RegExp;
          try {
            regex = new RegExp(pattern, ignoreCase ? "i" : "");
          } catch (error) {
            throw new FlowError("invalid-request", `Invalid regular expression: ${(error as Error).message}`);
          }
          const matches: { uri: string; line: number; text: string }[] = [];
          let budgetMs = GREP_TIME_BUDGET_MS;
          for (const entry of await readableEntries(scope)) {
            if (matches.length > MAX_RESULTS) break;
            if (uriGlob !== undefined && !uriMatches(entry.uri, uriGlob)) continue;
            const content = await entry.read();
            if (content === null) continue;
            const lines = content.split("\n");
            const started = performance.now();
            const hits = matchLines(regex, lines, MAX_RESULTS + 1 - matches.length, budgetMs);
            budgetMs -= performance.now() - started;
            if (hits === null) {
              throw new FlowError(
                "invalid-request",
                `The regular expression took longer than ${GREP_TIME_BUDGET_MS} ms to search; use a simpler pattern (one that does not nest repetition such as (a+)+).`,
              );
            }
            for (const i of hits) matches.push({ uri: entry.uri, line: i + 1, text: lines[i]! });
          }
          return { matches: matches.slice(0, MAX_RESULTS), truncated: matches.length > MAX_RESULTS };
        }),
    }),
    searchResources: contentTool({
      description: "Search resources by text. External collections are searched through their own search.",
      inputSchema: z.object({
        query: z.string(),
        ref: z.string().optional().describe("Only this resource (accessor name)"),
        limit: z.number().int().min(1).max(MAX_RESULTS).optional(),
      }),
      execute: ({ query, ref, limit }) =>
        guarded(async () => {
          const max = limit ?? 20;
          const needle = query.toLowerCase();
          const results: { uri: string; ref: string }[] = [];
          for (const accessor of scope.accessors()) {
            if (ref !== undefined && accessor !== ref) continue;
            const runtime = scope.runtime(accessor);
            if (runtime === undefined || !allows(runtime.def, "read")) continue;
            if (runtime instanceof ExternalCollectionRuntime) {
              if (runtime.def.search === undefined) continue;
              const page = await runtime.search({ search: query, limit: max });
              for (const item of page.items) results.push({ uri: item.uri, ref: accessor });
              continue;
            }
            const instances =
              runtime instanceof SingleResourceRuntime ? [runtime.handle] : await runtime.scan();
            for (const instance of instances) {
              const content = (await instance.readContent()) ?? "";
              if (instance.uri.toLowerCase().includes(needle) || content.toLowerCase().includes(needle)) {
                results.push({ uri: instance.uri, ref: accessor });
              }
            }
          }
          return { results: results.slice(0, max) };
        }),
    }),
  };
}
