import { defineFlow, defineResourceCollection, handler } from "@flowrt/core";
import { z } from "zod";

/**
 * The flow the two-host tests serve from separate processes. `FLOWRT_TEST_HOST` names the process in
 * outputs and events, so a test can tell which host ran what.
 */
const hostName = () => process.env.FLOWRT_TEST_HOST ?? "unnamed";

/** Items clients create, read, update and delete; lazy, so a request never lists the whole session. */
export const notes = defineResourceCollection({
  pattern: "notes/*",
  scope: "session",
  prefetchMode: "lazy",
  stateSchema: z.object({ n: z.number().default(0) }),
  client: { content: { read: true, create: true, update: true, delete: true }, state: { read: true } },
});

/** Items clients create, at most 10 live at once (`eviction: "none"`): the cap the two-host tests race. */
export const capped = defineResourceCollection({
  pattern: "capped/*",
  scope: "session",
  maxInstances: 10,
  eviction: "none",
  stateSchema: z.object({ n: z.number().default(0) }),
  client: { content: { read: true, create: true }, state: { read: true } },
});

/** `times` single `incState`s on an existing item: the state changes that race increments and DELETEs. */
const bump = handler({
  name: "bump",
  inputSchema: z.object({ topic: z.string(), times: z.number().int().min(1).max(100).default(1) }),
  execute: async (input, ctx) => {
    const note = await ctx.resources.notes.get(input.topic);
    for (let i = 0; i < input.times; i++) await note.incState({ n: 1 });
    return { host: hostName() };
  },
});

/**
 * Emits `count` tick events with a pause before each, so a stream elsewhere can watch them arrive. With a
 * `topic`, each tick also increments that note's `n` after its event.
 */
const chatter = handler({
  name: "chatter",
  inputSchema: z.object({
    count: z.number().int().min(1).max(50),
    pauseMs: z.number().int().min(0),
    topic: z.string().optional(),
  }),
  execute: async (input, ctx) => {
    for (let i = 0; i < input.count; i++) {
      await new Promise((resolve) => setTimeout(resolve, input.pauseMs));
      await ctx.emit({ type: "tick", data: { i, host: hostName(), sentAt: Date.now() } });
      if (input.topic !== undefined) await (await ctx.resources.notes.get(input.topic)).incState({ n: 1 });
    }
    return { host: hostName(), ticks: input.count };
  },
});

/**
 * Counts its attempts in session state. In a process started with `FLOWRT_TEST_HANG` (the one the test
 * kills) it then says so on stdout and never finishes; elsewhere it completes.
 */
const slow = handler({
  name: "slow",
  inputSchema: z.object({}),
  execute: async (_input, ctx) => {
    await ctx.session.incState({ attempts: 1 });
    if (process.env.FLOWRT_TEST_HANG) {
      process.stdout.write(`running ${ctx.requestId}\n`);
      await new Promise(() => {});
    }
    return { host: hostName(), attempts: ctx.session.state.attempts };
  },
});

export const board = defineFlow({
  kind: "board",
  session: { stateSchema: z.object({ attempts: z.number().default(0) }) },
  resources: { notes, capped },
  actions: {
    bump: { block: bump },
    chatter: { block: chatter },
    slow: { block: slow, durable: true },
  },
});
