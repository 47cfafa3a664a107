import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Takes `file` as a lock for this process (one rehearsal at a time shares the folders and databases), or
 * throws naming the process that holds it. A lock whose process is gone is taken over. Answers its release.
 *
 * @param {string} file
 * @returns {() => void}
 */
export function takeLock(file) {
  mkdirSync(dirname(file), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: "wx" });
      return () => rmSync(file, { force: true });
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
      const holder = Number(readFileSync(file, "utf8").trim());
      if (isRunning(holder))
        throw new Error(`another rehearsal (pid ${holder}) is running; ${file} is its lock`);
      rmSync(file, { force: true });
    }
  }
  throw new Error(`could not take ${file}`);
}

function isRunning(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}
