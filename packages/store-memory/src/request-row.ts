import type { RequestPatch, RequestRecord, RequestStatus } from "@flowrt/core";
import { checkOptionalString, checkString, jsonObjectText, jsonText } from "./json-text.js";

const STATUSES: ReadonlySet<string> = new Set<RequestStatus>([
  "queued",
  "running",
  "completed",
  "failed",
  "aborted",
]);

export function checkStatus(status: unknown): asserts status is RequestStatus {
  if (typeof status !== "string" || !STATUSES.has(status)) {
    throw new TypeError(`store-memory: unknown request status "${String(status)}".`);
  }
}

function checkClaim(claim: unknown): asserts claim is { hostId: string; until: number } {
  const ok =
    typeof claim === "object" &&
    claim !== null &&
    typeof (claim as { hostId?: unknown }).hostId === "string" &&
    typeof (claim as { until?: unknown }).until === "number";
  if (!ok) throw new TypeError("store-memory: a request claim is { hostId: string, until: number }.");
}

/** A claim epoch: absent, or a non-negative integer. */
function checkEpoch(epoch: unknown): void {
  if (epoch !== undefined && !(Number.isInteger(epoch) && (epoch as number) >= 0)) {
    throw new TypeError("store-memory: a request epoch is a non-negative integer.");
  }
}

/** When a finished request finished, for retention: `completedAt`, else `createdAt`, else long ago. */
function finishedMs(completedAt: string | undefined, createdAt: string): number {
  const ms = Date.parse(completedAt ?? createdAt);
  if (!Number.isNaN(ms)) return ms;
  const created = Date.parse(createdAt);
  return Number.isNaN(created) ? 0 : created;
}

/**
 * One stored request. Scalars are kept as fields (they are what updates, indexes and retention
 * touch); the JSON members (`input`, `output`, `error`, `metadata`) as text, so an update rewrites
 * only what its patch names and a read parses only those members.
 */
export class RequestRow {
  readonly id: string;
  readonly sessionId: string;
  readonly flowId: string;
  readonly flowKind: string;
  readonly action: string;
  readonly userId: string;
  readonly orgId: string | undefined;
  status: RequestStatus;
  readonly input: string;
  output: string | undefined;
  error: string | undefined;
  metadata: string;
  readonly durable: boolean;
  claimHost: string | undefined;
  claimUntil: number;
  /** The epoch of the latest claim, as written (`undefined` before any: epoch 0). */
  epoch: number | undefined;
  version: number;
  readonly createdAt: string;
  startedAt: string | undefined;
  completedAt: string | undefined;
  /** {@link finishedMs}, parsed on first use (retention) rather than on every write; NaN until then. */
  private finished = Number.NaN;

  /** Copies `record` in; throws (before anything is stored) on a field of the wrong type. */
  constructor(record: RequestRecord) {
    if (typeof record !== "object" || record === null || typeof record.id !== "string") {
      throw new TypeError("store-memory: a request record needs a string id.");
    }
    checkStatus(record.status);
    checkString(record.sessionId, "request sessionId");
    checkString(record.flowId, "request flowId");
    checkString(record.flowKind, "request flowKind");
    checkString(record.action, "request action");
    checkString(record.userId, "request userId");
    checkString(record.createdAt, "request createdAt");
    checkOptionalString(record.orgId, "request orgId");
    checkOptionalString(record.startedAt, "request startedAt");
    checkOptionalString(record.completedAt, "request completedAt");
    if (!Number.isInteger(record.version))
      throw new TypeError("store-memory: a request version is an integer.");
    if (typeof record.durable !== "boolean")
      throw new TypeError("store-memory: request durable must be a boolean.");
    if (record.claim !== undefined) checkClaim(record.claim);
    checkEpoch(record.epoch);
    this.id = record.id;
    this.sessionId = record.sessionId;
    this.flowId = record.flowId;
    this.flowKind = record.flowKind;
    this.action = record.action;
    this.userId = record.userId;
    this.orgId = record.orgId;
    this.status = record.status;
    this.input = jsonText(record.input, "request input");
    this.output = record.output === undefined ? undefined : jsonText(record.output, "request output");
    this.error = record.error === undefined ? undefined : jsonObjectText(record.error, "request error");
    this.metadata = jsonObjectText(record.metadata, "request metadata");
    this.durable = record.durable;
    this.claimHost = record.claim?.hostId;
    this.claimUntil = record.claim?.until ?? 0;
    this.epoch = record.epoch;
    this.version = record.version;
    this.createdAt = record.createdAt;
    this.startedAt = record.startedAt;
    this.completedAt = record.completedAt;
  }

  /** ms since epoch of `completedAt ?? createdAt`, for retention. */
  get finishedMs(): number {
    if (Number.isNaN(this.finished)) this.finished = finishedMs(this.completedAt, this.createdAt);
    return this.finished;
  }

  /** A fresh record: nothing in it is shared with the row or with an earlier read. */
  toRecord(): RequestRecord {
    const record: RequestRecord = {
      id: this.id,
      sessionId: this.sessionId,
      flowId: this.flowId,
      flowKind: this.flowKind,
      action: this.action,
      userId: this.userId,
      status: this.status,
      input: JSON.parse(this.input),
      metadata: JSON.parse(this.metadata),
      durable: this.durable,
      version: this.version,
      createdAt: this.createdAt,
    };
    if (this.orgId !== undefined) record.orgId = this.orgId;
    if (this.output !== undefined) record.output = JSON.parse(this.output);
    if (this.error !== undefined) record.error = JSON.parse(this.error);
    if (this.claimHost !== undefined) record.claim = { hostId: this.claimHost, until: this.claimUntil };
    if (this.epoch !== undefined) record.epoch = this.epoch;
    if (this.startedAt !== undefined) record.startedAt = this.startedAt;
    if (this.completedAt !== undefined) record.completedAt = this.completedAt;
    return record;
  }

  /** Writes a checked patch (see {@link checkPatch}) and bumps the version. */
  apply(patch: RequestPatch, texts: PatchTexts): void {
    if (patch.status !== undefined) this.status = patch.status;
    if (texts.output !== undefined) this.output = texts.output;
    if (texts.error !== undefined) this.error = texts.error;
    if (texts.metadata !== undefined) this.metadata = texts.metadata;
    if (patch.claim === null) {
      this.claimHost = undefined;
      this.claimUntil = 0;
    } else if (patch.claim !== undefined) {
      this.claimHost = patch.claim.hostId;
      this.claimUntil = patch.claim.until;
    }
    // Kept when the claim is released, so a stale run's fence stays refused after the request finished.
    if (patch.epoch !== undefined) this.epoch = patch.epoch;
    if (patch.startedAt !== undefined) this.startedAt = patch.startedAt;
    if (patch.completedAt !== undefined) {
      this.completedAt = patch.completedAt;
      this.finished = Number.NaN;
    }
    this.version += 1;
  }
}

/** The JSON members of a patch as text, made before the row is touched. */
export interface PatchTexts {
  output: string | undefined;
  error: string | undefined;
  metadata: string | undefined;
}

/** Checks every field of `patch` and copies its JSON members, so a bad patch throws having written nothing. */
export function checkPatch(patch: RequestPatch): PatchTexts {
  if (typeof patch !== "object" || patch === null) {
    throw new TypeError("store-memory: a request patch must be an object.");
  }
  if (patch.status !== undefined) checkStatus(patch.status);
  if (patch.claim !== undefined && patch.claim !== null) checkClaim(patch.claim);
  checkEpoch(patch.epoch);
  checkOptionalString(patch.startedAt, "request startedAt");
  checkOptionalString(patch.completedAt, "request completedAt");
  return {
    output: patch.output === undefined ? undefined : jsonText(patch.output, "request output"),
    error: patch.error === undefined ? undefined : jsonObjectText(patch.error, "request error"),
    metadata: patch.metadata === undefined ? undefined : jsonObjectText(patch.metadata, "request metadata"),
  };
}
