// A flows module with an `enum`, TypeScript-only syntax that Node's type stripping refuses and tsx compiles.
import { defineFlow, handler } from "@flowrt/core";

enum Tone {
  Warm = "warm",
}

const greet = handler({ name: "greet", execute: async (): Promise<string> => Tone.Warm });

export const toned = defineFlow({
  kind: "toned",
  authentication: { requireUser: false, defaultUserId: "dev" },
  actions: { greet: { block: greet } },
});
