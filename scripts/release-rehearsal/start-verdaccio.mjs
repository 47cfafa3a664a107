import { mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { killGroup, spawnGroup, tail } from "./run-command.mjs";

/** A free loopback port (the OS picks it; the short race until Verdaccio binds it is accepted). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts Verdaccio on a free loopback port. `@flowrt/*` is served only from its own storage (no uplink, so
 * nothing published on npmjs under that name can stand in for what the rehearsal publishes); everything else
 * is proxied to `uplink` and cached in `storageDir`, which may outlive the run (its `@flowrt` folder is wiped
 * first). Publishing needs a user: one is created, and its token answered.
 *
 * @param {{ verdaccio: string, storageDir: string, runDir: string, uplink: string }} options
 * @returns {Promise<{ registry: string, token: string, stop: () => Promise<void> }>}
 */
export async function startVerdaccio({ verdaccio, storageDir, runDir, uplink }) {
  rmSync(join(storageDir, "@flowrt"), { recursive: true, force: true });
  rmSync(join(runDir, "htpasswd"), { force: true });
  mkdirSync(storageDir, { recursive: true });
  const port = await freePort();
  const registry = `http://127.0.0.1:${port}/`;
  const config = join(runDir, "verdaccio.yaml");
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(storageDir)}`,
      "auth:",
      "  htpasswd:",
      `    file: ${JSON.stringify(join(runDir, "htpasswd"))}`,
      "    max_users: 10",
      "    rounds: 4",
      // A JWT is checked by its signature; the legacy token costs a bcrypt check on every request.
      "security:",
      "  api:",
      "    jwt:",
      "      sign: { expiresIn: 2h }",
      "uplinks:",
      "  npmjs:",
      `    url: ${JSON.stringify(uplink)}`,
      "    maxage: 30m",
      "    timeout: 60s",
      "packages:",
      "  '@flowrt/*':",
      "    access: $all",
      "    publish: $authenticated",
      "    unpublish: $authenticated",
      "  '**':",
      "    access: $all",
      "    publish: $authenticated",
      "    proxy: npmjs",
      "max_body_size: 50mb",
      "log: { type: stdout, format: pretty, level: warn }",
      "",
    ].join("\n"),
  );
  const logFile = join(runDir, "verdaccio.log");
  const log = openSync(logFile, "w");
  const child = spawnGroup(
    process.execPath,
    [verdaccio, "--config", config, "--listen", `127.0.0.1:${port}`],
    {
      cwd: runDir,
      stdio: ["ignore", log, log],
    },
  );
  const exited = new Promise((resolve) => child.once("close", resolve));
  const stop = async () => {
    killGroup(child.pid, "SIGTERM");
    const timer = setTimeout(() => killGroup(child.pid), 5_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitForPing(registry, exited);
    const token = await createUser(registry);
    return { registry, token, stop };
  } catch (error) {
    await stop();
    throw new Error(`Verdaccio: ${error.message}\n${tail(readFileSync(logFile, "utf8"), 20)}`);
  }
}

async function waitForPing(registry, exited) {
  let gone = false;
  exited.then(() => {
    gone = true;
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (gone) throw new Error("exited before it answered");
    try {
      const res = await fetch(`${registry}-/ping`);
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${registry}-/ping did not answer within 60 s`);
}

/** Creates the publishing user, as `npm adduser` does, and answers its token. */
async function createUser(registry) {
  const name = "rehearsal";
  const res = await fetch(`${registry}-/user/org.couchdb.user:${name}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, password: `pw-${process.pid}-${Date.now()}`, type: "user", roles: [] }),
  });
  const body = await res.json().catch(() => ({}));
  if (!res.ok || typeof body.token !== "string") throw new Error(`could not create a user: ${res.status}`);
  return body.token;
}
