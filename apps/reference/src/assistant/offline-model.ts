import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
} from "@ai-sdk/provider";

/**
 * A deterministic language model that runs offline, so the app and its tests need no network or key. It
 * implements the AI SDK's language model specification (v4) and follows three rules:
 * - "note: <text>" (or "remember <text>") calls `writeResourceContent` to save `<text>` as a session note, then
 *   says which note it wrote;
 * - a message that mentions "notes" calls `globResources` on the session's notes, then lists them;
 * - anything else gets a short explanation of those two rules.
 * Text streams a word at a time.
 */
export class OfflineModel implements LanguageModelV4 {
  readonly specificationVersion = "v4";
  readonly provider = "flowrt-reference";
  readonly modelId = "offline";
  readonly supportedUrls = {};

  async doGenerate(): Promise<never> {
    throw new Error("The offline model only streams (the generator block uses streamText).");
  }

  async doStream(options: LanguageModelV4CallOptions) {
    const parts = reply(options.prompt, new Set((options.tools ?? []).map((tool) => tool.name)));
    return { stream: streamOf(parts) };
  }
}

function streamOf(parts: LanguageModelV4StreamPart[]): ReadableStream<LanguageModelV4StreamPart> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

function text(sentence: string): LanguageModelV4StreamPart[] {
  const words = sentence.split(/(?<= )/);
  return [
    { type: "text-start", id: "reply" },
    ...words.map((delta): LanguageModelV4StreamPart => ({ type: "text-delta", id: "reply", delta })),
    { type: "text-end", id: "reply" },
    { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage: usage(8, words.length) },
  ];
}

function toolCall(toolName: string, input: unknown): LanguageModelV4StreamPart[] {
  return [
    { type: "tool-call", toolCallId: `call-${toolName}`, toolName, input: JSON.stringify(input) },
    { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage: usage(8, 4) },
  ];
}

/** The user's words: the text parts of the last user message. */
function userText(prompt: LanguageModelV4Prompt): string {
  const last = prompt.findLast((message) => message.role === "user");
  if (last === undefined || last.role !== "user") return "";
  return last.content.map((part) => (part.type === "text" ? part.text : "")).join(" ");
}

function slug(text: string): string {
  const base = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  return base === "" ? "note" : base;
}

function reply(prompt: LanguageModelV4Prompt, tools: Set<string>): LanguageModelV4StreamPart[] {
  const lastMessage = prompt.at(-1);
  if (lastMessage?.role === "tool") {
    const result = lastMessage.content.find((part) => part.type === "tool-result");
    const output = result?.type === "tool-result" ? result.output : undefined;
    const value = (output?.type === "json" ? output.value : undefined) as
      | { uri?: string; uris?: string[]; error?: unknown }
      | undefined;
    if (value?.uri !== undefined) return text(`Saved your note as ${value.uri}.`);
    if (value?.uris !== undefined) {
      const names = value.uris.map((uri) => uri.split("/").pop());
      return text(names.length === 0 ? "You have no notes yet." : `Your notes: ${names.join(", ")}.`);
    }
    return text("That did not work; the event log shows the tool's answer.");
  }
  const said = userText(prompt).trim();
  const note = /^(?:note:|remember\b)\s*(.+)$/is.exec(said);
  if (note?.[1] !== undefined && tools.has("writeResourceContent")) {
    return toolCall("writeResourceContent", {
      uri: `session/notes/${slug(note[1])}`,
      content: note[1].trim(),
    });
  }
  if (/\bnotes\b/i.test(said) && tools.has("globResources")) {
    return toolCall("globResources", { pattern: "session/notes/*" });
  }
  return text('I am the offline assistant. Say "note: <text>" and I save a note, or ask about your notes.');
}
