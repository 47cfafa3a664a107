/**
 * The journal that makes a request write and its other parts (active entry, events, own session) one unit: an
 * intent on disk without its done line is finished at the next start when its record was written, and dropped when
 * it was not. The intents here are written by hand, as a crash at each point would leave them.
 */
import { appendFile, mkdir, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { ActiveRequestEntry, FlowStores, RequestEvent, RequestRecord } from "@flowrt/core";
import { isFlowError } from "@flowrt/core";
import { requestRecord, sessionRecord } from "@flowrt/store-conformance";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFsStores } from "./create-fs-stores.js";
import { makeTempDir, removeTempDir } from "./testing/temp-dir.js";

const entryOf = (request: RequestRecord): ActiveRequestEntry => ({
  requestId: request.id,
  sessionId: request.sessionId,
  flowId: request.flowId,
  userId: request.userId,
  action: request.action,
  startedAt: "2026-01-01T00:00:00.000Z",
});

const newEvent = (request: RequestRecord, type: string) => ({
  requestId: request.id,
  type,
  at: "2026-01-01T00:00:00.000Z",
  data: {},
});

const eventOf = (request: RequestRecord, seq: number, type: string): RequestEvent => ({
  seq,
  type,
  requestId: request.id,
  at: "2026-01-01T00:00:00.000Z",
  data: { seq },
});

describe("fs store: the effects journal", () => {
  let parent: string;
  let dir: string;
  const open: FlowStores[] = [];
  const openStores = () => {
    const stores = createFsStores({ dir, retention: false });
    open.push(stores);
    return stores;
  };
  /** Appends journal lines, as a process that died before its done line left them. */
  const journal = async (...lines: object[]) => {
    await mkdir(dir, { recursive: true });
    await appendFile(
      path.join(dir, "effects.log"),
      lines.map((line) => `${JSON.stringify(line)}\n`).join(""),
    );
  };
  const closeAll = async () => {
    for (const stores of open.splice(0)) await stores.close();
  };

  beforeEach(async () => {
    parent = await makeTempDir();
    dir = path.join(parent, "store");
  });
  afterEach(async () => {
    await closeAll();
    await removeTempDir(parent);
  });

  it("finishes an update whose record was written: its events (after those in the log) and its active entry", async () => {
    const first = openStores();
    const request = requestRecord({ status: "running", version: 2 });
    await first.requests.create(request);
    await first.requests.appendEvent(newEvent(request, "request.queued"));
    await closeAll();
    // The record is at version 2, the intent's: the crash came after the commit, before the other parts.
    await journal({
      i: "t1",
      id: request.id,
      v: 2,
      active: entryOf(request),
      events: [eventOf(request, 2, "request.started"), eventOf(request, 3, "block.started")],
    });

    const second = openStores();
    expect((await second.requests.readEvents(request.id)).map((e) => [e.seq, e.type])).toEqual([
      [1, "request.queued"],
      [2, "request.started"],
      [3, "block.started"],
    ]);
    expect(await second.requests.listActive({ userId: request.userId })).toEqual([entryOf(request)]);
    // Settled: the journal is gone, and a new append follows the recovered events.
    expect(await readdir(dir)).not.toContain("effects.log");
    expect((await second.requests.appendEvent(newEvent(request, "text.delta"))).seq).toBe(4);
  });

  it("writes nothing of an intent whose record was not written (the write was never acknowledged)", async () => {
    const first = openStores();
    const request = requestRecord();
    await first.requests.create(request);
    await first.requests.markActive(entryOf(request));
    await closeAll();
    await journal({
      i: "t1",
      id: request.id,
      v: 2,
      active: null,
      events: [eventOf(request, 1, "request.started")],
    });
    // An intent of a request that is not stored at all is dropped too.
    const ghost = requestRecord();
    await journal({ i: "t2", id: ghost.id, v: 1, session: sessionRecord({ id: ghost.sessionId }) });

    const second = openStores();
    expect(await second.requests.get(request.id)).toEqual(request);
    expect(await second.requests.readEvents(request.id)).toEqual([]);
    expect(await second.requests.listActive({ userId: request.userId })).toEqual([entryOf(request)]);
    expect(await second.sessions.get(ghost.sessionId)).toBeNull();
    expect(await readdir(dir)).not.toContain("effects.log");
  });

  it("finishes a create whose request was written: its session, listed as any session", async () => {
    const first = openStores();
    const session = sessionRecord();
    const request = requestRecord({ sessionId: session.id, userId: session.userId });
    await first.requests.create(request);
    await closeAll();
    await journal({ i: "t1", id: request.id, v: 1, session });

    const second = openStores();
    expect(await second.sessions.get(session.id)).toEqual(session);
    expect(await second.sessions.list({ userId: session.userId })).toEqual({ items: [session], total: 1 });
  });

  it("leaves done intents alone, appends only missing events, and lets a later update decide the registry", async () => {
    const first = openStores();
    const request = requestRecord({ status: "running", version: 4 });
    await first.requests.create(request);
    await first.requests.appendEvent(newEvent(request, "request.started"));
    await closeAll();
    await journal(
      // Done: even though its parts are missing, it is not written again (a later write may have undone them).
      { i: "t1", id: request.id, v: 2, active: entryOf(request) },
      { c: "t1" },
      // Superseded by version 4: its events (seq 1 is there, 2 is not) are finished, its active entry is not.
      {
        i: "t2",
        id: request.id,
        v: 3,
        active: entryOf(request),
        events: [eventOf(request, 1, "request.started"), eventOf(request, 2, "block.started")],
      },
    );

    const second = openStores();
    expect((await second.requests.readEvents(request.id)).map((e) => [e.seq, e.type])).toEqual([
      [1, "request.started"],
      [2, "block.started"],
    ]);
    expect(await second.requests.listActive({ userId: request.userId })).toEqual([]);
  });

  it("an update's effects and a create's session land together, and a torn journal line is ignored", async () => {
    await journal({ i: "t0", id: "r-none", v: 1 });
    await appendFile(path.join(dir, "effects.log"), '{"i":"torn","id":"x"');
    const stores = openStores();
    const session = sessionRecord();
    const request = requestRecord({ sessionId: session.id, userId: session.userId });
    expect(await stores.requests.create(request, { session })).toBe(true);
    const started = {
      requestId: request.id,
      type: "request.started",
      at: "2026-01-01T00:00:00.000Z",
      data: {},
    };
    expect(
      await stores.requests.update(
        request.id,
        1,
        { status: "running" },
        { active: entryOf(request), events: [started] },
      ),
    ).toEqual({ ok: true, version: 2 });
    await stores.close();
    // Both writes finished, so a new instance has nothing to settle and finds everything.
    const again = openStores();
    expect(await again.sessions.get(session.id)).toEqual(session);
    expect(await again.requests.readEvents(request.id)).toEqual([{ ...started, seq: 1 }]);
    expect(await again.requests.listActive({ userId: request.userId })).toEqual([entryOf(request)]);
  });

  it("keeps no data of a removed session, a user's removed requests or purged ones in the journal", async () => {
    const stores = openStores();
    const journalText = () => readFile(path.join(dir, "effects.log"), "utf8").catch(() => "");
    const runThrough = async (request: RequestRecord) => {
      const session = sessionRecord({ id: request.sessionId, userId: request.userId });
      expect(await stores.requests.create(request, { session })).toBe(true);
      const started = { ...newEvent(request, "request.started"), data: { secret: `${request.id}-data` } };
      const claimed = await stores.requests.update(
        request.id,
        1,
        { status: "running" },
        { active: entryOf(request), events: [started] },
      );
      expect(claimed.ok).toBe(true);
      const ended = await stores.requests.update(
        request.id,
        2,
        { status: "completed", completedAt: "2000-01-01T00:00:00.000Z" },
        { active: null, events: [newEvent(request, "request.completed")] },
      );
      expect(ended.ok).toBe(true);
    };
    const [removed, byUser, purged, kept] = [
      requestRecord(),
      requestRecord(),
      requestRecord(),
      requestRecord(),
    ];
    for (const request of [removed, byUser, purged, kept]) await runThrough(request);
    await stores.requests.update(kept.id, 3, { completedAt: new Date().toISOString() });
    expect(await journalText()).toContain(removed.sessionId);

    await stores.sessions.remove(removed.sessionId);
    await stores.requests.removeByUser(byUser.userId);
    await stores.requests.purgeFinished({ maxAgeMs: 1000, now: Date.parse("2000-01-02T00:00:00.000Z") });
    expect(await stores.requests.get(purged.id)).toBeNull();
    const left = await journalText();
    for (const gone of [removed, byUser, purged]) {
      expect(left).not.toContain(gone.id);
      expect(left).not.toContain(gone.sessionId);
    }
    expect((await stores.requests.readEvents(kept.id)).map((e) => e.type)).toEqual([
      "request.started",
      "request.completed",
    ]);
  });

  it("refuses bad effects with invalid-request before anything is written", async () => {
    const stores = openStores();
    const request = requestRecord();
    await stores.requests.create(request);
    const bad = [
      { active: { ...entryOf(request), requestId: "other" } },
      { events: [{ requestId: "other", type: "t", at: "", data: {} }] },
      { events: [{ requestId: request.id, type: "t", at: "", data: [] as never }] },
      { events: "no" as never },
    ];
    for (const effects of bad) {
      const error = await stores.requests
        .update(request.id, 1, { status: "running" }, effects)
        .catch((e) => e);
      expect(isFlowError(error) && error.code, JSON.stringify(effects)).toBe("invalid-request");
    }
    const elsewhere = sessionRecord();
    const refused = await stores.requests.create(requestRecord(), { session: elsewhere }).catch((e) => e);
    expect(isFlowError(refused) && refused.code).toBe("invalid-request");
    expect(await stores.sessions.get(elsewhere.id)).toBeNull();
    expect(await stores.requests.get(request.id)).toEqual(request);
    expect(await stores.requests.readEvents(request.id)).toEqual([]);
    expect(await stores.requests.listActive({})).toEqual([]);
  });
});
