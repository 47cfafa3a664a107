import { spawn } from "node:child_process";

/** The process groups started here and still running, ended by `killAll()` when the rehearsal is interrupted. */
const running = new Set();

/**
 * `spawn`, in a process group of its own (so that ending it ends what it started, `npx`'s child included),
 * remembered until it exits.
 *
 * @param {string} command
 * @param {string[]} args
 * @param {import("node:child_process").SpawnOptions} options
 */
export function spawnGroup(command, args, options) {
  const child = spawn(command, args, { ...options, detached: true });
  if (child.pid !== undefined) {
    running.add(child.pid);
    child.once("exit", () => running.delete(child.pid));
  }
  return child;
}

/** Ends every process group this script started that is still running. */
export function killAll() {
  for (const pid of running) killGroup(pid);
}

/**
 * Runs a command to its end and answers its exit code and output. A command still running after
 * `timeoutMs` is killed (its whole process group) and answers code `null`.
 *
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, timeoutMs?: number }} [options]
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string }>}
 */
export function runCommand(command, args, { cwd, env, timeoutMs = 180_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawnGroup(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      stderr += `\n(killed after ${timeoutMs} ms)`;
      killGroup(child.pid);
    }, timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * As `runCommand`, but a non-zero exit is thrown, with the end of what the command printed.
 *
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, timeoutMs?: number }} [options]
 */
export async function mustRun(command, args, options) {
  const result = await runCommand(command, args, options);
  if (result.code !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} exited with ${result.code}\n${tail(result.stderr || result.stdout, 30)}`,
    );
  }
  return result;
}

/** The last `lines` lines of `text`. */
export function tail(text, lines) {
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}

/** Ends a process this script started, with the processes it started (spawned `detached`: its own group). */
export function killGroup(pid, signal = "SIGKILL") {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}
