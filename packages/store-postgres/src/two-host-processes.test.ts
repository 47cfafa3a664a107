/**
 * Two flowrt hosts as separate processes (Express + engine + these stores) on one PostgreSQL schema,
 * driven over real HTTP. The guarantees the specification gives only within one process hold here
 * across processes. PGlite is one session inside one process, so these need a real server.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_URL, uniqueSchema } from "./testing/databases.js";
import {
  call,
  followRequest,
  type HostProcess,
  openEventStream,
  type StreamedEvent,
  settled,
  startHost,
  trials,
} from "./testing/host-processes.js";

const TRIALS = 200;

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it holds (at most 10 s). */
async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not reached within 10 s");
    await delay(1);
  }
}

/** Starts an action on a host (202) and returns its request id. */
async function start(host: HostProcess, action: string, body: object): Promise<string> {
  // Open mode: every action names its user (the session's owner), as the specification's resolution order reads it.
  const started = await call(host, "POST", `/board/actions/${action}`, { userId: "u1", ...body });
  expect(started.status).toBe(202);
  return started.body.requestId as string;
}

const terminal = (events: StreamedEvent[]) => events.at(-1)?.event;
const TERMINAL_TYPES = ["request.completed", "request.failed", "request.aborted"];

describe.skipIf(!DATABASE_URL)(
  "two host processes on one database over HTTP (skipped without DATABASE_URL: needs a real PostgreSQL server, PGlite is one process)",
  () => {
    const url = DATABASE_URL as string;
    const schema = uniqueSchema();
    let a: HostProcess;
    let b: HostProcess;
    let sessionId: string;
    const items = () => `/sessions/${sessionId}/resources/notes`;

    beforeAll(async () => {
      // Both start on a fresh schema at once: each host.start() runs setup(), which must not collide.
      [a, b] = await Promise.all([
        startHost("A", { databaseUrl: url, schema }),
        startHost("B", { databaseUrl: url, schema }),
      ]);
      const created = await call(a, "POST", "/board/sessions", { userId: "u1" });
      expect(created.status).toBe(201);
      sessionId = created.body.session.id;
    });

    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      const admin = new pg.Pool({ connectionString: url, max: 1 });
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    });

    it(`simultaneous POST creates of one topic on two hosts: exactly one 201, one 409, the winner's content (${TRIALS} trials)`, async () => {
      const winners = { A: 0, B: 0 };
      await trials(TRIALS, 8, async (i) => {
        const topic = `race-${i}`;
        const [fromA, fromB] = await Promise.all([
          call(a, "POST", items(), { topic, content: `body from A #${i}` }),
          call(b, "POST", items(), { topic, content: `body from B #${i}` }),
        ]);
        expect([fromA.status, fromB.status].sort()).toEqual([201, 409]);
        const [winner, loser] = fromA.status === 201 ? (["A", fromB] as const) : (["B", fromA] as const);
        winners[winner]++;
        expect(loser.body).toMatchObject({ status: 409, code: "topic-exists" });
        // Read back through the other host: the content is the winner's, not the loser's.
        const content = await call(winner === "A" ? b : a, "GET", `${items()}/${topic}/content`);
        expect(content).toEqual({ status: 200, body: { content: `body from ${winner} #${i}` } });
      });
      // Both hosts won some races: the race really was between the processes.
      expect(winners.A + winners.B).toBe(TRIALS);
      expect(winners.A).toBeGreaterThan(0);
      expect(winners.B).toBeGreaterThan(0);
      const listed = await call(b, "GET", `${items()}?topicPrefix=notes%2Frace-&limit=1`);
      expect(listed.body.pagination.total).toBe(TRIALS);
    });

    it("50 concurrent creates of a collection with maxInstances 10 (eviction none) spread over both processes: exactly 10 land, 40 are collection-full", async () => {
      for (let trial = 0; trial < 5; trial++) {
        const created = await call(a, "POST", "/board/sessions", { userId: "u1" });
        expect(created.status).toBe(201);
        const capped = `/sessions/${created.body.session.id}/resources/capped`;
        const replies = await Promise.all(
          Array.from({ length: 50 }, (_, i) => call(i % 2 ? b : a, "POST", capped, { topic: `t${i}` })),
        );
        const made = replies.filter((reply) => reply.status === 201);
        expect(made).toHaveLength(10);
        for (const reply of replies.filter((reply) => reply.status !== 201))
          expect(reply.body).toMatchObject({ status: 409, code: "collection-full" });
        const listed = await call(b, "GET", `${capped}?limit=50`);
        expect(listed.body.pagination.total).toBe(10);
        expect(listed.body.items.map((item: { topic: string }) => item.topic).sort()).toEqual(
          made.map((reply) => reply.body.topic).sort(),
        );
      }
    });

    it(`concurrent incState actions on one key from both hosts: every increment lands (${TRIALS} trials)`, async () => {
      expect((await call(a, "POST", items(), { topic: "counter" })).status).toBe(201);
      const ranOn = { A: 0, B: 0 } as Record<string, number>;
      await trials(TRIALS, 8, async () => {
        const ids = await Promise.all([
          start(a, "bump", { sessionId, input: { topic: "counter" } }),
          start(b, "bump", { sessionId, input: { topic: "counter" } }),
        ]);
        for (const id of ids) {
          const record = await settled(a, id);
          expect(record.status).toBe("completed");
          const host = record.output.host as string;
          ranOn[host] = (ranOn[host] ?? 0) + 1;
        }
      });
      const counter = await call(b, "GET", `${items()}/counter`);
      expect(counter).toEqual({
        status: 200,
        body: { topic: "notes/counter", clientData: { n: 2 * TRIALS } },
      });
      expect((ranOn.A ?? 0) + (ranOn.B ?? 0)).toBe(2 * TRIALS);
      expect(ranOn.A).toBeGreaterThan(0);
      expect(ranOn.B).toBeGreaterThan(0);
    });

    it(`a DELETE on one host racing a state change on the other: 409 leaves item and content intact, 200 removes it (${TRIALS} trials)`, async () => {
      const outcomes = { conflict: 0, deleted: 0 };
      await trials(TRIALS, 8, async (i) => {
        const topic = `doomed-${i}`;
        const content = `keep me #${i}`;
        expect((await call(a, "POST", items(), { topic, content })).status).toBe(201);
        // The DELETE goes out once the action's writes have begun (its first increment is visible),
        // after 0–9 ms more: it lands between, during or after the remaining writes.
        const requestId = await start(b, "bump", { sessionId, input: { topic, times: 10 } });
        await until(async () => (await call(a, "GET", `${items()}/${topic}`)).body?.clientData?.n >= 1);
        await delay(i % 10);
        const deletion = await call(a, "DELETE", `${items()}/${topic}`);
        const change = await settled(b, requestId);
        const item = await call(b, "GET", `${items()}/${topic}`);
        const body = await call(b, "GET", `${items()}/${topic}/content`);
        if (deletion.status === 409) {
          outcomes.conflict++;
          expect(deletion.body).toMatchObject({ status: 409, code: "delete-conflict" });
          // The change won: it is stored, and so is the content the DELETE would have dropped.
          expect(change.status).toBe("completed");
          expect(item).toEqual({ status: 200, body: { topic: `notes/${topic}`, clientData: { n: 10 } } });
          expect(body).toEqual({ status: 200, body: { content } });
        } else {
          outcomes.deleted++;
          expect(deletion).toEqual({ status: 200, body: { topic: `notes/${topic}`, deleted: true } });
          // The deleted item's content never comes back. (Whether its state may: see the skipped test below.)
          expect(body.status === 404 ? null : body.body.content).toBeNull();
        }
      });
      expect(outcomes.conflict + outcomes.deleted).toBe(TRIALS);
      // Both outcomes happened: the DELETE really raced the writes.
      expect(outcomes.conflict).toBeGreaterThan(0);
      expect(outcomes.deleted).toBeGreaterThan(0);
    });

    it("a stream opened on host B receives, live and in order, the events of a request running on host A", async () => {
      const pauseMs = 250;
      const started = await call(a, "POST", "/board/actions/chatter", {
        userId: "u1",
        sessionId,
        input: { count: 5, pauseMs },
      });
      expect(started.status).toBe(202);
      const { requestId } = started.body as { requestId: string };
      // Opened on B while the request runs on A. A client resumes with Last-Event-ID if the server
      // ends the stream early (see the skipped engine test below); what it receives is checked whole.
      const { events } = await followRequest(b, requestId);
      expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
      expect(events.map((e) => e.event)).toEqual([
        "request.started",
        "block.started",
        "tick",
        "tick",
        "tick",
        "tick",
        "tick",
        "block.completed",
        "request.completed",
      ]);
      const ticks = events.filter((e) => e.event === "tick");
      expect(ticks.map((e) => e.data.host)).toEqual(["A", "A", "A", "A", "A"]);
      expect(events.at(-1)?.data.output).toEqual({ host: "A", ticks: 5 });
      // Live: each tick reached host B's stream before host A had even emitted the next one.
      for (let i = 0; i + 1 < ticks.length; i++) {
        expect(ticks[i]!.receivedAt).toBeLessThan(ticks[i + 1]!.data.sentAt);
      }
      // What came live is exactly what the log replays (from either host).
      const replay = await followRequest(a, requestId);
      expect(replay.events.map(({ id, event, data }) => ({ id, event, data }))).toEqual(
        events.map(({ id, event, data }) => ({ id, event, data })),
      );
    });

    it("an abort sent to host B stops a run on host A at once: its writes stop and nothing follows request.aborted", async () => {
      const topic = "aborted-chatter";
      expect((await call(a, "POST", items(), { topic, content: "c" })).status).toBe(201);
      const n = async () => (await call(b, "GET", `${items()}/${topic}`)).body.clientData.n as number;
      // 30 ticks, 100 ms apart, on A; the hosts renew claims every leaseMs / 3 (about 1.7 s).
      const requestId = await start(a, "chatter", { sessionId, input: { count: 30, pauseMs: 100, topic } });
      await until(async () => (await n()) >= 3);
      expect((await call(b, "POST", `/requests/${requestId}/abort`)).status).toBe(202);
      const atAbort = await n();
      expect((await settled(a, requestId)).status).toBe("aborted");
      // Long enough for A to have written several more ticks had it gone on, short of a claim renewal.
      await delay(800);
      // At most the tick under way when the abort landed still lands.
      expect(await n()).toBeLessThanOrEqual(atAbort + 1);

      const { events } = await followRequest(b, requestId);
      expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
      expect(terminal(events)).toBe("request.aborted");
      expect(events.filter((e) => e.event === "block.completed")).toHaveLength(0);
      // The log holds nothing after the terminal event: a resume from it ends at once, with nothing sent.
      const resumed = openEventStream(`${a.url}/requests/${requestId}/stream`, {
        "last-event-id": String(events.at(-1)!.id),
      });
      expect(await resumed.status).toBe(200);
      await resumed.done;
      expect(resumed.events).toEqual([]);
    });

    it("a durable request whose host is SIGKILLed mid-run is completed by the other host exactly once", async () => {
      // A third host with a short lease, which hangs inside the action and is then killed.
      const doomed = await startHost("C", { databaseUrl: url, schema, leaseMs: 600, hang: true });
      const created = await call(doomed, "POST", "/board/sessions", { userId: "u1" });
      const started = await call(doomed, "POST", "/board/actions/slow", {
        userId: "u1",
        sessionId: created.body.session.id,
        input: {},
      });
      expect(started.status).toBe(202);
      const { requestId } = started.body as { requestId: string };
      await doomed.waitForOutput(new RegExp(`running ${requestId}`));
      await doomed.kill();

      const stream = await followRequest(b, requestId);
      const types = stream.events.map((e) => e.event);
      // Started on C, started again by a survivor after C's lease lapsed, completed once.
      expect(types.filter((t) => t === "request.started")).toHaveLength(2);
      expect(types.filter((t) => t === "request.completed")).toHaveLength(1);
      expect(types.filter((t) => t === "request.failed" || t === "request.aborted")).toHaveLength(0);
      expect(stream.events.map((e) => e.id)).toEqual(stream.events.map((_, i) => i + 1));

      const record = (await call(a, "GET", `/requests/${requestId}`)).body.request;
      expect(record.status).toBe("completed");
      expect(["A", "B"]).toContain(record.output.host);
      // C's attempt counted, and exactly one more: the survivor's.
      expect(record.output.attempts).toBe(2);

      // Later recovery passes (every 200 ms on both survivors) never run it again.
      await new Promise((resolve) => setTimeout(resolve, 800));
      const again = await followRequest(a, requestId);
      expect(again.events.map((e) => e.id)).toEqual(stream.events.map((e) => e.id));
      expect((await call(b, "GET", `/requests/${requestId}`)).body.request).toEqual(record);
    });

    // Two engine rules these processes once broke (a delete revived by a racing write; a stream ending before its terminal event).
    it(`a state change that loses its race to a DELETE does not bring the item back (${TRIALS} trials)`, async () => {
      // StateCell re-reads after a lost compare-and-swap; an instance deleted under it reads as absent,
      // so the write becomes a create-only write that revives the tombstone (state from defaults, no content).
      await trials(TRIALS, 8, async (i) => {
        const topic = `revenant-${i}`;
        expect((await call(a, "POST", items(), { topic, content: "c" })).status).toBe(201);
        const requestId = await start(b, "bump", { sessionId, input: { topic, times: 10 } });
        await until(async () => (await call(a, "GET", `${items()}/${topic}`)).body?.clientData?.n >= 1);
        await delay(i % 10);
        const deletion = await call(a, "DELETE", `${items()}/${topic}`);
        await settled(b, requestId);
        if (deletion.status === 200) expect((await call(b, "GET", `${items()}/${topic}`)).status).toBe(404);
      });
    });

    it(`a request's event stream ends only after its terminal event (${TRIALS} trials)`, async () => {
      // streamRequestEvents returns when isFinished() is true and the log holds nothing new, but the
      // runner commits the terminal status before it appends the terminal event: in between, the
      // stream ends after block.completed. Seen on about 2% of short requests.
      await trials(TRIALS, 8, async (i) => {
        const requestId = await start(a, "bump", { sessionId, input: { topic: "counter" } });
        const stream = openEventStream(`${(i % 2 ? a : b).url}/requests/${requestId}/stream`);
        await stream.done;
        expect(TERMINAL_TYPES).toContain(terminal(stream.events));
      });
    });
  },
);
