// A flows module Node can load by stripping its types alone: annotations only, packages by name (their builds),
// no TypeScript-only syntax. The CLI's TypeScript loading tests serve it.
import { defineFlow, handler } from "@flowrt/core";
import { z } from "zod";

interface Greeting {
  text: string;
}

const greet = handler({
  name: "greet",
  inputSchema: z.object({ name: z.string() }),
  execute: async (input: { name: string }): Promise<Greeting> => ({ text: `Hello, ${input.name}` }),
});

export const greeter = defineFlow({
  kind: "greeter",
  authentication: { requireUser: false, defaultUserId: "dev" },
  actions: { greet: { block: greet } },
});
