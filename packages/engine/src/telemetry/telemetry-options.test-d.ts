import { OpenTelemetry } from "@ai-sdk/otel";
import type { TelemetryOptions } from "ai";
import { describe, expectTypeOf, it } from "vitest";
import type { AiTelemetrySettings, HostTelemetryOptions } from "./telemetry-options.js";

describe("telemetry.ai typed without the AI SDK", () => {
  it("takes every AI SDK TelemetryOptions value", () => {
    expectTypeOf<TelemetryOptions>().toExtend<AiTelemetrySettings>();
    const options: HostTelemetryOptions = {
      ai: { integrations: [new OpenTelemetry()], recordInputs: false },
    };
    expectTypeOf(options.ai).toExtend<AiTelemetrySettings | undefined>();
  });
});
