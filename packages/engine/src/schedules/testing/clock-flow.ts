import {
  defineFlow,
  type FlowStores,
  handler,
  type RequestRecord,
  type ScheduleConfig,
  TERMINAL_REQUEST_STATUSES,
} from "@flowrt/core";
import { z } from "zod";

/** Records the tick it ran for; its output echoes its input. */
export const tickBlock = handler({
  name: "tick",
  inputSchema: z.object({ at: z.string() }),
  execute: async (input) => ({ ranFor: input.at }),
});

/** A flow with the given schedules (each defaults to `tickBlock` with its tick as input, as user `ops`). */
export function clockFlow(
  schedules: Record<string, Partial<ScheduleConfig> & { cron: string }>,
  kind = "clock",
) {
  const full: Record<string, ScheduleConfig> = {};
  for (const [name, config] of Object.entries(schedules)) {
    full[name] = {
      block: tickBlock,
      principal: { userId: "ops" },
      input: (tick: { scheduledAt: string }) => ({ at: tick.scheduledAt }),
      ...config,
    };
  }
  return defineFlow({ kind, schedules: full });
}

/** Every scheduled request stored, oldest tick first. */
export async function scheduledRequests(stores: FlowStores): Promise<RequestRecord[]> {
  const all = await stores.requests.listByStatus(["queued", "running", ...TERMINAL_REQUEST_STATUSES]);
  return all
    .filter((r) => r.metadata.origin === "scheduled")
    .sort((a, b) => scheduledAt(a).localeCompare(scheduledAt(b)));
}

/** The tick a scheduled request ran for (ISO 8601). */
export function scheduledAt(request: RequestRecord): string {
  return String((request.metadata.schedule as { scheduledAt?: unknown } | undefined)?.scheduledAt);
}
