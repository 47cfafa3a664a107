/**
 * Issue 19's operator test with real processes on one PostgreSQL schema, `leaseMs` 2000: a host A runs a durable
 * action that sleeps 2.5 s and then increments `done` in session state (its `onCompleted` increments
 * `completions`). A is frozen with SIGSTOP 2.4 s into the sleep (a long GC pause, a frozen VM); host B takes the
 * request over once A's claim lapses and completes it; then A is resumed with SIGCONT. A's late write must be
 * refused: `done` 1, `completions` 1, the request completed by B with one terminal event, and A's log says
 * `lease-lost`.
 *
 * Each trial freezes its own A: several A processes run trials side by side (their own recovery passes off, so the
 * one taking over is B), which keeps 50 trials to a couple of minutes.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tableNames } from "./sql.js";
import { DATABASE_URL, uniqueSchema } from "./testing/databases.js";
import { call, followRequest, type HostProcess, settled, startHost } from "./testing/host-processes.js";

const TRIALS = 50;
/** A processes running trials at once; each runs TRIALS / A_HOSTS of them, one after another. */
const A_HOSTS = 5;
const LEASE_MS = 2_000;
const SLEEP_MS = 2_500;
const FREEZE_AT_MS = 2_400;

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const TERMINAL_TYPES = ["request.completed", "request.failed", "request.aborted"];

describe.skipIf(!DATABASE_URL)(
  "a host frozen past its lease and resumed after a take-over (skipped without DATABASE_URL: needs real host processes on a PostgreSQL server)",
  () => {
    const url = DATABASE_URL as string;
    const schema = uniqueSchema();
    let b: HostProcess;
    let as: HostProcess[] = [];
    let admin: pg.Pool;

    /** The session's state as stored (`done`, `completions`). */
    const sessionState = async (sessionId: string) => {
      const { rows } = await admin.query<{ value: string }>(
        `SELECT value::text AS value FROM ${tableNames(schema).scopeState} WHERE scope = 'session' AND scope_id = $1`,
        [sessionId],
      );
      expect(rows).toHaveLength(1);
      return JSON.parse(rows[0]!.value) as { done?: number; completions?: number };
    };

    beforeAll(async () => {
      admin = new pg.Pool({ connectionString: url, max: 2 });
      const common = { databaseUrl: url, schema, leaseMs: LEASE_MS, log: true };
      b = await startHost("B", common);
      as = await Promise.all(
        Array.from({ length: A_HOSTS }, (_, i) =>
          startHost(`A${i + 1}`, { ...common, recoveryIntervalMs: 0 }),
        ),
      );
    }, 120_000);

    afterAll(async () => {
      for (const a of as) a.thaw();
      await Promise.all([b?.stop(), ...as.map((a) => a.stop())]);
      await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin?.end();
    });

    /** One trial on host `a`; returns the session it used. */
    const trial = async (a: HostProcess): Promise<string> => {
      const session = await call(a, "POST", "/pauser/sessions", { userId: "u1" });
      expect(session.status).toBe(201);
      const sessionId = session.body.session.id as string;
      const started = await call(a, "POST", "/pauser/actions/pause", {
        userId: "u1",
        sessionId,
        input: { ms: SLEEP_MS },
      });
      expect(started.status).toBe(202);
      const requestId = started.body.requestId as string;
      await a.waitForOutput(new RegExp(`pausing ${escapeRegExp(requestId)}`));
      await delay(FREEZE_AT_MS);
      a.freeze();
      try {
        // B's recovery pass (every 200 ms) finds A's claim lapsed, runs the action again and completes it.
        const record = await settled(b, requestId, 30_000);
        expect(record.status).toBe("completed");
        expect(record.output).toEqual({ host: "B" });
      } finally {
        a.thaw();
      }
      // A wakes in its sleep, past its lease: the run stops (or its write is refused) and says why.
      // One JSON line naming the request and saying lease-lost (pino's field order puts `msg` last).
      const id = escapeRegExp(requestId);
      await a.waitForLog(new RegExp(`lease-lost[^\\n]*${id}|${id}[^\\n]*lease-lost`), 15_000);
      await delay(300);
      expect(await sessionState(sessionId)).toEqual({ done: 1, completions: 1 });
      const { events } = await followRequest(b, requestId);
      expect(events.filter((e) => TERMINAL_TYPES.includes(e.event)).map((e) => e.event)).toEqual([
        "request.completed",
      ]);
      expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
      return sessionId;
    };

    it(`${TRIALS} trials: SIGSTOP at 2.4 s of a 2.5 s sleep, take-over, SIGCONT: no double effect, one completion`, async () => {
      const sessions = (
        await Promise.all(
          as.map(async (a) => {
            const mine: string[] = [];
            for (let i = 0; i < TRIALS / A_HOSTS; i++) mine.push(await trial(a));
            return mine;
          }),
        )
      ).flat();
      expect(sessions).toHaveLength(TRIALS);
      // Once more at the end, long after every A went on: no late write landed in any trial.
      for (const sessionId of sessions)
        expect(await sessionState(sessionId)).toEqual({ done: 1, completions: 1 });
    }, 600_000);
  },
);
