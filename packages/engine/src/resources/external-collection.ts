import {
  type ExternalCollectionDefinition,
  type ExternalCollectionHandle,
  type ExternalContext,
  type ExternalQuery,
  type ExternalRecordRef,
  FlowError,
  type JsonObject,
  resourceIdentity,
  type ScopeAddress,
} from "@flowrt/core";
import { renderContentTemplate } from "./content-template.js";
import type { ResourceRuntimeContext } from "./context.js";

export interface ExternalPage {
  items: ExternalRecordRef<JsonObject>[];
  nextCursor?: string;
}

/**
 * An external collection of one request: every read goes to the application's `read`/`search` hook.
 * Results are validated through `stateSchema` (failures dropped and logged) and memoized for this request
 * only (concurrent identical reads share one call); nothing is cached across requests, and nothing is
 * ever written.
 */
export class ExternalCollectionRuntime {
  readonly accessor: string;
  readonly def: ExternalCollectionDefinition<any>;
  readonly handle: ExternalCollectionHandle<JsonObject>;
  private readonly ctx: ResourceRuntimeContext;
  private readonly address: ScopeAddress;
  private readonly reads = new Map<string, Promise<JsonObject | null>>();
  private readonly searches = new Map<string, Promise<ExternalPage>>();

  constructor(
    ctx: ResourceRuntimeContext,
    accessor: string,
    def: ExternalCollectionDefinition<any>,
    address: ScopeAddress,
  ) {
    this.ctx = ctx;
    this.accessor = accessor;
    this.def = def;
    this.address = address;
    const runtime = this;
    this.handle = {
      scope: def.scope,
      pattern: def.pattern,
      async get(key) {
        const found = await runtime.read(key);
        if (found === null) {
          throw new FlowError("instance-not-found", `Resource "${accessor}" has no record "${key}".`, {
            details: { resource: accessor, topic: key },
          });
        }
        return found;
      },
      getOptional: (key) => runtime.read(key),
      list: (query) => runtime.search(typeof query === "string" ? { search: query } : (query ?? {})),
    };
  }

  /** The hook context, derived from the request only. */
  private hookContext(): ExternalContext {
    const session = this.ctx.session;
    const out: ExternalContext = {
      scope: this.def.scope,
      scopeId: this.address.scopeId,
      userId: session.userId,
      flowKind: this.ctx.flow.kind,
      signal: this.ctx.signal,
    };
    if (session.orgId !== undefined) out.orgId = session.orgId;
    if (session.tenantId !== undefined) out.tenantId = session.tenantId;
    return out;
  }

  private validate(key: string, state: unknown, via: string): JsonObject | null {
    const parsed = this.def.stateSchema.safeParse(state);
    if (
      parsed.success &&
      typeof parsed.data === "object" &&
      parsed.data !== null &&
      !Array.isArray(parsed.data)
    ) {
      return parsed.data as JsonObject;
    }
    // Only the key and the failing paths are logged: record values may be private.
    this.ctx.log.warn(
      `External collection "${this.accessor}" ${via} returned a record that fails stateSchema; it is dropped`,
      {
        resource: this.accessor,
        key,
        issues: parsed.success
          ? ["not an object"]
          : parsed.error.issues.map((i) => i.path.join(".") || "(state)"),
      },
    );
    return null;
  }

  private ref(path: string, state: JsonObject): ExternalRecordRef<JsonObject> {
    const identity = resourceIdentity(this.def.scope, path);
    const key = String(this.def.compiledPattern.fromPath(path, this.accessor));
    const template = this.def.contentTemplate;
    const accessor = this.accessor;
    const frozen = Object.freeze(structuredClone(state));
    return Object.freeze({
      ...identity,
      key,
      state: frozen,
      async readContent() {
        return template === undefined ? null : renderContentTemplate(accessor, template, frozen);
      },
    });
  }

  /** One record through `read`, memoized per path for this request. */
  async read(key: string): Promise<ExternalRecordRef<JsonObject> | null> {
    const path = this.def.compiledPattern.toPath(key, this.accessor);
    let pending = this.reads.get(path);
    if (pending === undefined) {
      const appKey = String(this.def.compiledPattern.fromPath(path, this.accessor));
      pending = Promise.resolve()
        .then(() => this.def.read({ key: appKey, ctx: this.hookContext() }))
        .then((state) =>
          state === null || state === undefined ? null : this.validate(appKey, state, "read"),
        );
      this.reads.set(path, pending);
      // A failed read is not memoized: a retry in the same request asks again.
      pending.catch(() => this.reads.delete(path));
    }
    const state = await pending;
    return state === null ? null : this.ref(path, state);
  }

  /** One page through `search`, memoized per query for this request; hits keep the hook's order. */
  search(query: ExternalQuery): Promise<ExternalPage> {
    const search = this.def.search;
    if (search === undefined) {
      return Promise.reject(
        new FlowError(
          "operation-not-permitted",
          `External collection "${this.accessor}" has no search hook, so it cannot be listed.`,
          {
            details: { resource: this.accessor },
          },
        ),
      );
    }
    const memoKey = JSON.stringify(query);
    let pending = this.searches.get(memoKey);
    if (pending === undefined) {
      pending = Promise.resolve()
        .then(() => search({ query: { ...query }, ctx: this.hookContext() }))
        .then((result) => {
          const items: ExternalRecordRef<JsonObject>[] = [];
          for (const hit of result?.hits ?? []) {
            let path: string;
            try {
              path = this.def.compiledPattern.toPath(hit.key, this.accessor);
            } catch {
              this.ctx.log.warn(
                `External collection "${this.accessor}" search returned a key outside its pattern; it is dropped`,
                {
                  resource: this.accessor,
                },
              );
              continue;
            }
            const state = this.validate(String(hit.key), hit.state, "search");
            if (state !== null) items.push(this.ref(path, state));
          }
          const page: ExternalPage = { items };
          if (typeof result?.nextCursor === "string") page.nextCursor = result.nextCursor;
          return page;
        });
      this.searches.set(memoKey, pending);
      pending.catch(() => this.searches.delete(memoKey));
    }
    return pending;
  }
}
