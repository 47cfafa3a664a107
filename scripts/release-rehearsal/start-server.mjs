import { killGroup, spawnGroup, tail } from "./run-command.mjs";

/**
 * Starts a long-running command (a server) and waits until its output matches `banner`; answers the
 * banner's first group and a `stop()` that ends the process and everything it started.
 *
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd: string, env: NodeJS.ProcessEnv, banner: RegExp, timeoutMs?: number }} options
 * @returns {Promise<{ url: string, output: () => string, stop: () => Promise<void> }>}
 */
export async function startServer(command, args, { cwd, env, banner, timeoutMs = 60_000 }) {
  const child = spawnGroup(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const exited = new Promise((resolve) => child.once("close", resolve));
  const stop = async () => {
    killGroup(child.pid);
    await exited;
  };
  child.stdout.setEncoding("utf8").on("data", (chunk) => {
    output += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk) => {
    output += chunk;
  });
  try {
    const url = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${banner} within ${timeoutMs} ms`)), timeoutMs);
      const check = () => {
        const match = banner.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      };
      child.stdout.on("data", check);
      child.stderr.on("data", check);
      child.once("error", reject);
      exited.then((code) => reject(new Error(`exited with ${code} before ${banner}`)));
    });
    return { url, output: () => output, stop };
  } catch (error) {
    await stop();
    throw new Error(`${command} ${args.join(" ")}: ${error.message}\n${tail(output, 30)}`);
  }
}
