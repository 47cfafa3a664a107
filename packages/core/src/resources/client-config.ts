/**
 * The `client` block of a resource: its types and its definition-time rules (client rules 1–8 of the
 * specification). The helpers the engine reads it through are in `client-projection.ts`.
 */
import { describeValue, refuseOption } from "./definition-issue.js";

/** Field names of a state type, for `expose` and `exclude`. */
export type StateField<TState> = keyof TState & string;

/**
 * At most one of `expose`, `exclude` and `data` (client rule 2). None of them is the identity projection.
 * Under `expose` a field added to the schema later stays private; under `exclude` it is published.
 */
export type ClientProjection<TState> =
  | {
      /** Only these state fields reach clients. */
      expose: readonly StateField<TState>[];
      exclude?: never;
      data?: never;
    }
  | {
      /** Every state field but these reaches clients. */
      exclude: readonly StateField<TState>[];
      expose?: never;
      data?: never;
    }
  | {
      /** Computes what clients see from the state. */
      data: (state: TState) => unknown;
      expose?: never;
      exclude?: never;
    }
  | { expose?: never; exclude?: never; data?: never };

export interface ClientContentReadPermissions {
  /** Clients may fetch the content. @default false */
  read?: boolean;
  /** The content is inlined in the snapshot entry. @default false */
  prefetch?: boolean;
}

export interface ClientContentWritePermissions extends ClientContentReadPermissions {
  /** Permits POST (create an item). Not with a projection. @default false */
  create?: boolean;
  /** Permits PATCH of an item's content. Not with a projection. @default false */
  update?: boolean;
  /** Permits DELETE of an item. Not with a projection. @default false */
  delete?: boolean;
}

interface ClientCommon {
  /** Stream projected `clientData` with every mutation. Needs client-visible clientData. @default false */
  live?: boolean;
}

/** `client` of a single resource: content read/prefetch and a projection. */
export type SingleClientConfig<TState> = ClientCommon & {
  content?: ClientContentReadPermissions;
} & ClientProjection<TState>;

/** `client` of a collection. `create`/`update`/`delete` are refused together with a projection (client rule 4). */
export type CollectionClientConfig<TState> = ClientCommon & {
  content?: ClientContentWritePermissions;
  /** `read` permits the list and item-state endpoints and per-item clientData. */
  state?: { read?: boolean };
} & ClientProjection<TState>;

/** `client` of an external collection: read-only (client rule 8). */
export type ExternalClientConfig<TState> = ClientCommon & {
  content?: ClientContentReadPermissions;
  state?: { read?: boolean };
} & ClientProjection<TState>;

/** Every client config shape, as the engine reads it. */
export interface ClientConfigView {
  content?: { read?: boolean; prefetch?: boolean; create?: boolean; update?: boolean; delete?: boolean };
  state?: { read?: boolean };
  expose?: readonly string[];
  exclude?: readonly string[];
  data?: (state: any) => unknown;
  live?: boolean;
}

type ResourceType = "single" | "collection" | "external";

const CONTENT_FLAGS = ["read", "prefetch", "create", "update", "delete"] as const;
const WRITE_FLAGS = ["create", "update", "delete"] as const;
const CLIENT_KEYS = ["content", "state", "expose", "exclude", "data", "live"];

/**
 * Validates a `client` block at definition time and returns a frozen copy. `fields` are the state schema's
 * field names, or `undefined` when the schema admits unknown fields (then `expose`/`exclude` are not checked).
 */
export function validateClientConfig(
  label: string,
  type: ResourceType,
  client: unknown,
  fields: ReadonlySet<string> | undefined,
): ClientConfigView | undefined {
  if (client === undefined) return undefined;
  function refuse(option: string, problem: string, fix: string): never {
    return refuseOption(label, option, problem, fix);
  }
  if (!isPlainObject(client)) {
    refuse(
      "client",
      `client must be an object (got ${describeValue(client)})`,
      "Pass client: { content: { read: true } } or leave client out",
    );
  }
  for (const key of Object.keys(client)) {
    if (!CLIENT_KEYS.includes(key)) {
      refuse(
        `client.${key}`,
        `client.${key} is not a client option`,
        `Use only ${CLIENT_KEYS.map((k) => `client.${k}`).join(", ")}`,
      );
    }
  }

  const content = readFlags(label, "client.content", client.content, CONTENT_FLAGS);
  const state = readFlags(label, "client.state", client.state, ["read"]);
  if (type === "single") {
    for (const flag of WRITE_FLAGS) {
      if (content?.[flag] !== undefined) {
        refuse(
          `client.content.${flag}`,
          `client.content.${flag} is set on a single resource; create, update and delete are for collections`,
          `Remove client.content.${flag}, or define the resource with defineResourceCollection`,
        );
      }
    }
    if (state !== undefined) {
      refuse(
        "client.state",
        "client.state is set on a single resource; state.read is for collections",
        "Remove client.state and publish state with client.expose, client.exclude or client.data",
      );
    }
  }

  // Client rule 2: one projection at most.
  const projections = (["expose", "exclude", "data"] as const).filter((k) => client[k] !== undefined);
  if (projections.length > 1) {
    refuse(
      `client.${projections[1]}`,
      `client sets ${projections.map((p) => `client.${p}`).join(" and ")}; they are mutually exclusive`,
      "Keep one of client.expose, client.exclude and client.data",
    );
  }
  const expose = readFieldList(label, "client.expose", client.expose, fields);
  const exclude = readFieldList(label, "client.exclude", client.exclude, fields);
  if (client.data !== undefined && typeof client.data !== "function") {
    refuse(
      "client.data",
      `client.data must be a function state => value (got ${describeValue(client.data)})`,
      "Pass client.data: (state) => ({ ... })",
    );
  }
  const projection = projections[0];

  // Client rules 4 and 8: write permissions on a projected or an external collection.
  for (const flag of WRITE_FLAGS) {
    if (content?.[flag] !== true) continue;
    if (type === "external") {
      refuse(
        `client.content.${flag}`,
        `client.content.${flag} is set on an external collection; external collections are read-only`,
        `Remove client.content.${flag}; write records through the application's own store`,
      );
    }
    if (projection !== undefined) {
      refuse(
        `client.content.${flag}`,
        `client.content.${flag} is set on a projected collection (client.${projection}); a projected collection is read-only for clients`,
        `Remove client.content.${flag}, or remove client.${projection} so that clients see the full state`,
      );
    }
  }

  // Client rule 5: live needs clientData the client can see.
  if (client.live !== undefined && typeof client.live !== "boolean") {
    refuse(
      "client.live",
      `client.live must be a boolean (got ${describeValue(client.live)})`,
      "Set client.live to true or false",
    );
  }
  if (client.live === true && projection === undefined && (type === "single" || state?.read !== true)) {
    refuse(
      "client.live",
      type === "single"
        ? "client.live is set but the resource publishes no clientData"
        : "client.live is set but the collection publishes no clientData",
      type === "single"
        ? "Add client.expose, client.exclude or client.data, or remove client.live"
        : "Set client.state.read to true or add client.expose, client.exclude or client.data, or remove client.live",
    );
  }

  const view: ClientConfigView = {};
  if (content !== undefined) view.content = content;
  if (state !== undefined) view.state = state;
  if (expose !== undefined) view.expose = expose;
  if (exclude !== undefined) view.exclude = exclude;
  if (client.data !== undefined) view.data = client.data as (state: unknown) => unknown;
  if (client.live !== undefined) view.live = client.live as boolean;
  return Object.freeze(view);
}

function readFlags<K extends string>(
  label: string,
  option: string,
  value: unknown,
  flags: readonly K[],
): Partial<Record<K, boolean>> | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) {
    refuseOption(
      label,
      option,
      `${option} must be an object of booleans (got ${describeValue(value)})`,
      `Pass ${option}: { ${flags[0]}: true }`,
    );
  }
  const out: Partial<Record<K, boolean>> = {};
  for (const [key, flag] of Object.entries(value)) {
    if (!(flags as readonly string[]).includes(key)) {
      refuseOption(
        label,
        `${option}.${key}`,
        `${option}.${key} is not a permission`,
        `Use only ${flags.map((f) => `${option}.${f}`).join(", ")}`,
      );
    }
    if (flag === undefined) continue;
    if (typeof flag !== "boolean") {
      refuseOption(
        label,
        `${option}.${key}`,
        `${option}.${key} must be a boolean (got ${describeValue(flag)})`,
        `Set ${option}.${key} to true or false`,
      );
    }
    out[key as K] = flag;
  }
  return Object.freeze(out);
}

function readFieldList(
  label: string,
  option: string,
  value: unknown,
  fields: ReadonlySet<string> | undefined,
): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((f) => typeof f !== "string")) {
    refuseOption(
      label,
      option,
      `${option} must be an array of state field names (got ${describeValue(value)})`,
      `Pass ${option}: ["fieldName"]`,
    );
  }
  if (fields !== undefined) {
    const unknown = (value as string[]).filter((f) => !fields.has(f));
    if (unknown.length > 0) {
      const known = [...fields].map((f) => `"${f}"`).join(", ") || "none";
      refuseOption(
        label,
        option,
        `${option} names ${unknown.map((f) => `"${f}"`).join(", ")}, which stateSchema does not declare`,
        `Use fields of stateSchema (${known}) or add the field to stateSchema`,
      );
    }
  }
  return Object.freeze([...new Set(value as string[])]);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
