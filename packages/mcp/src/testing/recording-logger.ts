import type { HostLogger } from "@flowrt/engine";

export interface RecordedLine {
  level: string;
  msg: string | undefined;
  fields: Record<string, unknown>;
}

/** A host logger in pino's call shape that keeps every line (children's included) for a test to read. */
export function recordingLogger(): { logger: HostLogger; lines: RecordedLine[] } {
  const lines: RecordedLine[] = [];
  const make = (bindings: Record<string, unknown>): HostLogger => {
    const at =
      (level: string) =>
      (obj: object | string, msg?: string): void => {
        if (typeof obj === "string") lines.push({ level, msg: obj, fields: { ...bindings } });
        else lines.push({ level, msg, fields: { ...bindings, ...(obj as Record<string, unknown>) } });
      };
    return {
      trace: at("trace"),
      debug: at("debug"),
      info: at("info"),
      warn: at("warn"),
      error: at("error"),
      fatal: at("fatal"),
      child: (more) => make({ ...bindings, ...more }),
    };
  };
  return { logger: make({}), lines };
}
