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
    `warning: listening on ${host} with the development x-user-id resolver: anyone who can reach it can act as any user.\n`,
  );
}

const server = await startReferenceServer({ port, host, dataDir: ".data" });
process.stdout.write(`flowrt reference app on ${server.url} (API at ${server.url}${server.host.basePath})\n`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  });
}
