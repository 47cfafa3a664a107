/**
 * Scheduled runs across two real host processes on one PostgreSQL schema: the `clock` flow's schedule fires every
 * second (`* * * * * *`) on both hosts. Over 20 ticks each tick runs exactly once; host A freezes itself (SIGSTOP)
 * right after its claim of one tick landed, holding the claim past its lease (`leaseMs` 1500); B takes the tick over
 * and fires it; A, resumed (SIGCONT), does not fire it a second time (its fire is refused: `lease-lost`).
 */
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tableNames } from "./sql.js";
import { DATABASE_URL, uniqueSchema } from "./testing/databases.js";
import { type HostProcess, startHost } from "./testing/host-processes.js";

const SCRIPT = fileURLToPath(new URL("./testing/schedule-host-process.ts", import.meta.url));
const LEASE_MS = 1_500;
const TICKS = 20;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const second = (ms: number) => Math.floor(ms / 1_000) * 1_000;

describe.skipIf(!DATABASE_URL)(
  "scheduled runs on two host processes sharing one database (skipped without DATABASE_URL: needs real host processes on a PostgreSQL server)",
  () => {
    const url = DATABASE_URL as string;
    const schema = uniqueSchema();
    let a: HostProcess | undefined;
    let b: HostProcess | undefined;
    let admin: pg.Pool;

    /** How many requests each tick (ms since the epoch) started. */
    const runsPerTick = async (): Promise<Map<number, number>> => {
      const { rows } = await admin.query<{ at: string; runs: string }>(
        `SELECT metadata->'schedule'->>'scheduledAt' AS at, count(*) AS runs FROM ${tableNames(schema).requests}
         WHERE action = 'schedule:everySecond' GROUP BY 1`,
      );
      return new Map(rows.map((row) => [Date.parse(row.at), Number(row.runs)]));
    };

    beforeAll(async () => {
      admin = new pg.Pool({ connectionString: url, max: 2 });
    });

    afterAll(async () => {
      a?.thaw();
      await Promise.all([a?.stop(), b?.stop()]);
      await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin?.end();
    });

    it("over 20 per-second ticks each tick runs once, and a host frozen past its claim does not fire that tick after it resumes", async () => {
      const common = { databaseUrl: url, schema, leaseMs: LEASE_MS, log: true, script: SCRIPT };
      // B first, so that the schema exists.
      b = await startHost("B", common);
      a = await startHost("A", common);
      const from = second(Date.now()) + 2_000;
      const to = from + (TICKS - 1) * 1_000;
      // Armed mid-second: A freezes on the next tick whose claim it wins (B wins some ticks).
      await delay(from + 2_500 - Date.now());
      a.child.kill("SIGUSR2");
      const [, frozenAt] = await a.waitForOutput(/frozen (\d+)/, 10_000);
      const frozenTick = Number(frozenAt);
      expect(a.child.signalCode ?? a.child.exitCode, "A is stopped, not gone").toBeNull();
      // Held past its lease: B takes the tick over and fires it while A is stopped.
      await delay(frozenTick + 2 * LEASE_MS - Date.now());
      expect((await runsPerTick()).get(frozenTick), "B fired the frozen tick").toBe(1);
      a.thaw();
      await a.waitForLog(/scheduled tick taken over; not fired here/, 10_000);

      await delay(to + 1_500 - Date.now());
      const runs = await runsPerTick();
      const window = Array.from({ length: TICKS }, (_, i) => from + i * 1_000);
      expect(
        window.map((tick) => [new Date(tick).toISOString(), runs.get(tick) ?? 0]),
        "every tick of the window ran exactly once",
      ).toEqual(window.map((tick) => [new Date(tick).toISOString(), 1]));
      expect(window).toContain(frozenTick);
      expect(
        [...runs].filter(([, count]) => count !== 1),
        "no tick ran twice, in the window or outside it",
      ).toEqual([]);
      // Every run completed, wherever it ran.
      const { rows } = await admin.query<{ status: string; runs: string }>(
        `SELECT status, count(*) AS runs FROM ${tableNames(schema).requests} GROUP BY 1`,
      );
      expect(
        rows.filter(
          (row) => row.status !== "completed" && row.status !== "running" && row.status !== "queued",
        ),
      ).toEqual([]);
    }, 90_000);
  },
);
