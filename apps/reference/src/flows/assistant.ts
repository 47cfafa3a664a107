import { generator } from "@flowrt/core";
import { z } from "zod";
import { model } from "../assistant/choose-model.js";

/**
 * The assistant: one generator block on the AI SDK that reads and writes the session's notes through the
 * generic content tools. Its text streams as `text.delta` events; its tool calls as `tool.call`/`tool.result`.
 */
export const ask = generator({
  name: "ask",
  description: "Ask the assistant; it can read and write this session's notes.",
  model,
  inputSchema: z.object({ message: z.string().min(1).max(4_000) }),
  system:
    "You keep the user's notebook. Notes live at session/notes/<name>; save one with writeResourceContent, " +
    "list them with globResources. Answer in one or two sentences.",
  prompt: (input: { message: string }) => input.message,
  contentTools: true,
  maxSteps: 3,
});
