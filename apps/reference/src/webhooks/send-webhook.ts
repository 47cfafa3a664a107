import { type SampleEvent, sampleEvents, sendDelivery, signedSample } from "./sample-deliveries.js";

// `pnpm --filter @flowrt/reference webhook <event>`: signs a sample delivery and sends it to the running app
// (`FLOWRT_URL`, default http://127.0.0.1:3000).
const event = process.argv[2];
if (!sampleEvents.includes(event as SampleEvent)) {
  process.stderr.write(`usage: webhook <${sampleEvents.join("|")}>\n`);
  process.exit(2);
}
const origin = process.env.FLOWRT_URL || `http://127.0.0.1:${process.env.PORT || 3000}`;
const delivery = signedSample(event as SampleEvent);
try {
  const { status, body } = await sendDelivery(origin, delivery);
  process.stdout.write(`${delivery.provider} ${event} → ${status} ${body}\n`);
  process.exit(status === 202 ? 0 : 1);
} catch (error) {
  process.stderr.write(`could not reach ${origin}: ${(error as Error).message}\n`);
  process.exit(1);
}
