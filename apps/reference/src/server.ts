import { isLoopbackHost } from "@flowrt/express";
import { startReferenceServer } from "./app.js";

const port = Number(process.env.PORT || 3000);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  process.stderr.write(`PORT must be an integer from 0 to 65535 (got "${process.env.PORT}").\n`);
  process.exit(1);
}
const host = process.env.HOST || "127.0.0.1";
if (!isLoopbackHost(host)) {
  process.stderr.write(
    `warning: listening on ${host} with the development sign-in route (POST /auth/token): anyone who can reach it can sign in as any user.\n`,
  );
}

const graceText = process.env.FLOWRT_GRACE_MS || "8000";
if (!/^\d{1,9}$/.test(graceText)) {
  process.stderr.write(`FLOWRT_GRACE_MS must be a whole number of milliseconds (got "${graceText}").\n`);
  process.exit(1);
}
const graceMs = Number(graceText);

const server = await startReferenceServer({
  port,
  host,
  dataDir: process.env.FLOWRT_DATA_DIR || ".data",
  graceMs,
});

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) {
      // A second signal (a second Ctrl-C): stop waiting; durable work still running lapses to the next start.
      process.stderr.write(`${signal} again, exiting without waiting\n`);
      process.exit(1);
    }
    stopping = true;
    process.stdout.write(`${signal}: draining (up to ${graceMs} ms)\n`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  });
}

// Said once the signals are handled: whoever stops the server as soon as it reads this line gets the drain.
process.stdout.write(`flowrt reference app on ${server.url} (API at ${server.url}${server.host.basePath})\n`);
