/**
 * The instant handler of the `ingest` benchmark's peers, the same work as the flowrt binding's `recordPayment`
 * (`webhooks-flowrt-app.ts`): the event validated with the same zod schema, its id returned. Every call is
 * counted, so a server can say how many deliveries it has run.
 */
import { z } from "zod";

export const paymentSchema = z.object({ id: z.string(), type: z.string() }).passthrough();

let runs = 0;

/** Handler runs so far in this process. */
export const handlerRuns = () => runs;

/** Counts a run made elsewhere (the flowrt binding's handler, through its `onRun`). */
export const countRun = () => {
  runs++;
};

export async function recordPayment(event: unknown): Promise<{ id: string }> {
  const input = paymentSchema.parse(event);
  runs++;
  return { id: input.id };
}
