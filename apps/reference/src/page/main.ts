/// <reference lib="dom" />
// The page: signs in, then drives the notebook flow with the typed client, following each request's event
// stream (no polling) and the org board's feed. Bundled by esbuild when the server starts (src/page-bundle.ts).
import {
  createFlowClient,
  type FlowStreamEvent,
  isFlowClientError,
  isStreamEvent,
  SseParser,
} from "@flowrt/client";
import type { flows } from "../flows.js";

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const input = (id: string) => $<HTMLInputElement>(id);
const el = (tag: string, text = "", className = "") =>
  Object.assign(document.createElement(tag), { textContent: text, ...(className ? { className } : {}) });

interface SignedIn {
  token: string;
  userId: string;
  orgId: string;
}
interface Note {
  title: string;
  pinned: boolean;
  text: string;
}
interface Post {
  title: string;
  source: string;
  by: string;
  at: string;
}

/** Everything shown for the signed-in user; replaced whole on a change of user, so nothing stale survives. */
let view = freshView();
function freshView() {
  return {
    profile: { displayName: "", noteCount: 0 },
    notes: new Map<string, Note>(),
    board: new Map<string, Post>(),
    asked: 0,
  };
}
let auth: SignedIn | null = JSON.parse(localStorage.getItem("flowrt.auth") ?? "null");
let sessionId: string | null = null;
let feed: AbortController | null = null;

const client = createFlowClient<typeof flows>({
  baseUrl: "",
  headers: (): Record<string, string> => (auth ? { authorization: `Bearer ${auth.token}` } : {}),
});

// ---- errors, inline with their code -------------------------------------------------------------------------

function showError(error: unknown) {
  const box = $("error");
  box.replaceChildren();
  if (error === null) return;
  const code = isFlowClientError(error) ? error.code : ((error as { code?: string }).code ?? "error");
  const detail = isFlowClientError(error)
    ? error.detail || error.message
    : String((error as Error).message ?? error);
  box.append(el("code", code), ` ${detail}`);
}
const guard = (work: () => Promise<void>) => () => {
  showError(null);
  work().catch(showError);
};

// ---- rendering ---------------------------------------------------------------------------------------------

function render() {
  const { profile, notes, board, asked } = view;
  $("whoami").textContent = auth ? `signed in as ${auth.userId} in ${auth.orgId}` : "";
  $("session").textContent = sessionId ? `session ${sessionId}` : "";
  $("board-org").textContent = auth?.orgId ?? "";
  $("profile").textContent = auth
    ? `${profile.displayName || "(no name)"}: ${profile.noteCount} notes added in all sessions`
    : "";
  $("asked").textContent = asked > 0 ? `${asked} questions asked in this session` : "";
  $("notes").replaceChildren(
    ...[...notes].map(([topic, note]) => {
      const li = el("li");
      li.dataset.topic = topic;
      const del = el("button", "delete");
      del.onclick = guard(async () => {
        await client.resources(sessionId!, "notes").item(topic).delete();
        view.notes.delete(topic);
        render();
      });
      li.append(
        el("strong", `${note.pinned ? "📌 " : ""}${note.title || topic.replace(/^notes\//, "")}`),
        " ",
      );
      if (note.text) li.append(el("span", note.text, "note-text"), " ");
      li.append(del);
      return li;
    }),
  );
  $("board").replaceChildren(
    ...[...board]
      .sort(([a], [b]) => (a < b ? 1 : -1))
      .map(([topic, post]) => {
        const li = el("li");
        li.dataset.topic = topic;
        li.append(el("span", post.source, "source"), ` ${post.title} `, el("span", `by ${post.by}`, "by"));
        return li;
      }),
  );
  $("app").hidden = auth === null || sessionId === null;
}

function log(event: FlowStreamEvent) {
  const detail = isStreamEvent(event, "text.delta")
    ? JSON.stringify(event.delta)
    : isStreamEvent(event, "resource_change")
      ? `${event.scope}/${event.topic ?? event.ref} ${event.change}`
      : isStreamEvent(event, "tool.call")
        ? `${event.toolName} ${JSON.stringify(event.input)}`
        : isStreamEvent(event, "request.failed")
          ? `${event.error.code}: ${event.error.message}`
          : "";
  const line = el("li", `${event.type} ${detail}`.trim());
  line.dataset.type = event.type;
  $("log").append(line);
  $("log").scrollTop = $("log").scrollHeight;
}

// ---- folding live events into the view ---------------------------------------------------------------------

async function readNoteText(topic: string) {
  const note = view.notes.get(topic);
  if (!note || !sessionId) return;
  const { content } = await client.resources(sessionId, "notes").item(topic).content();
  note.text = content ?? "";
}

/** Folds one event into the view; answers the note topics whose text changed (read once the request ends). */
function fold(event: FlowStreamEvent, textChanged: Set<string>) {
  if (isStreamEvent(event, "state_change") && event.scope === "session") {
    view.asked = Number((event.clientData as { asked?: number }).asked ?? view.asked);
  }
  if (!isStreamEvent(event, "resource_change")) return;
  const data = (event.clientData ?? {}) as Record<string, unknown>;
  if (event.ref === "profile") Object.assign(view.profile, data);
  if (event.ref === "notes" && event.topic) {
    if (event.change === "deleted") view.notes.delete(event.topic);
    else {
      const note = view.notes.get(event.topic) ?? { title: "", pinned: false, text: "" };
      view.notes.set(event.topic, { ...note, ...data });
      if (event.change === "content" || event.change === "created") textChanged.add(event.topic);
    }
  }
  if (event.ref === "board" && event.topic) {
    if (event.change === "deleted") view.board.delete(event.topic);
    else
      view.board.set(event.topic, {
        ...(view.board.get(event.topic) ?? { title: "", source: "", by: "", at: "" }),
        ...data,
      } as Post);
  }
}

/** Runs an action and follows its event stream to the end; a refusal or a failure shows inline with its code. */
async function run(action: "addNote" | "setDisplayName" | "postToBoard" | "ask", actionInput: unknown) {
  const me = view;
  const { requestId } = await client.invoke("notebook", action as "addNote", {
    sessionId: sessionId!,
    input: actionInput as { title: string },
  });
  const textChanged = new Set<string>();
  if (action === "ask") $("reply").textContent = "";
  for await (const event of client.events(requestId)) {
    if (view !== me) return; // The user changed meanwhile: this request's news is not theirs to show.
    log(event);
    fold(event, textChanged);
    if (isStreamEvent(event, "text.delta")) $("reply").textContent += event.delta;
    if (isStreamEvent(event, "request.failed")) showError(event.error);
    render();
  }
  await Promise.all([...textChanged].map(readNoteText));
  if (view === me) render();
}

// ---- loading a session, following the board ------------------------------------------------------------------

async function load() {
  // Everything is read first and shown together, and only if the user is still the one it was read for.
  const me = view;
  const session = sessionId!;
  const snapshot = await client.snapshot<"notebook">(session);
  const notes = await client.resources(session, "notes").list({ limit: 50 });
  const board = await client.resources(session, "board").list({ limit: 50 });
  const texts = await Promise.all(
    notes.items.map(
      async (item) => (await client.resources(session, "notes").item(item.topic).content()).content,
    ),
  );
  if (view !== me) return;
  const profile = snapshot.resources.user?.profile as { clientData?: typeof view.profile } | undefined;
  Object.assign(view.profile, profile?.clientData ?? {});
  view.asked = snapshot.clientData.session.asked ?? 0;
  input("name").value = view.profile.displayName;
  notes.items.forEach((item, i) => {
    view.notes.set(item.topic, { title: "", pinned: false, ...item.clientData, text: texts[i] ?? "" });
  });
  for (const item of board.items) view.board.set(item.topic, item.clientData as Post);
  render();
}

/** Follows the org's board feed (`GET /api/flows/board-feed`), folding each change in as it happens. */
async function followBoard(signal: AbortSignal) {
  const response = await fetch("/api/flows/board-feed", {
    headers: { authorization: `Bearer ${auth!.token}` },
    signal,
  });
  if (!response.ok || !response.body)
    throw Object.assign(new Error("the board feed is unavailable"), { code: "board-feed" });
  const parser = new SseParser();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    for (const message of parser.push(value)) {
      fold(JSON.parse(message.data) as FlowStreamEvent, new Set());
      render();
    }
  }
}

async function startSession() {
  const me = view;
  const remembered = JSON.parse(localStorage.getItem("flowrt.session") ?? "null") as {
    userId: string;
    orgId: string;
    sessionId: string;
  } | null;
  sessionId =
    remembered && remembered.userId === auth!.userId && remembered.orgId === auth!.orgId
      ? remembered.sessionId
      : null;
  if (sessionId) {
    try {
      await load();
    } catch (error) {
      // Gone or not this user's: start another. Anything else (a restarting server) is shown.
      if (!isFlowClientError(error) || ![401, 403, 404].includes(error.status)) throw error;
      sessionId = null;
    }
  }
  if (!sessionId) {
    const created = await client.createSession("notebook", { title: "Reference notebook" });
    if (view !== me) return; // Signed in as someone else meanwhile.
    sessionId = created.id;
    localStorage.setItem(
      "flowrt.session",
      JSON.stringify({ userId: auth!.userId, orgId: auth!.orgId, sessionId }),
    );
    await load();
  }
  if (view !== me) return;
  feed = new AbortController();
  const signal = feed.signal;
  followBoard(signal).catch((error) => {
    if (!signal.aborted) showError(error);
  });
}

/** Forgets everything of the previous user (view, fields, log, feed) before anything of the next is shown. */
function resetView() {
  feed?.abort();
  feed = null;
  view = freshView();
  sessionId = null;
  for (const id of ["name", "title", "text", "post", "ask"]) input(id).value = "";
  $("reply").textContent = "";
  $("log").replaceChildren();
  render();
}

$("signin").onsubmit = (event) => {
  event.preventDefault();
  guard(async () => {
    resetView();
    const me = view;
    auth = null;
    localStorage.removeItem("flowrt.auth");
    const response = await fetch("/auth/token", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ userId: input("user").value, orgId: input("org").value }),
    });
    const body = await response.json();
    if (view !== me) return; // Another sign-in started meanwhile; it wins.
    if (!response.ok) throw Object.assign(new Error(body.detail), { code: body.code });
    auth = { token: body.token, userId: body.userId, orgId: body.orgId };
    localStorage.setItem("flowrt.auth", JSON.stringify(auth));
    await startSession();
  })();
};

const submit = (id: string, action: () => Promise<void>) => {
  $(id).onsubmit = (event) => {
    event.preventDefault();
    guard(action)();
  };
};
submit("profile-form", () => run("setDisplayName", { displayName: input("name").value }));
submit("add", async () => {
  const title = input("title").value;
  const text = input("text").value;
  input("title").value = "";
  input("text").value = "";
  await run("addNote", { title, text });
});
submit("board-form", async () => {
  const title = input("post").value;
  input("post").value = "";
  await run("postToBoard", { title });
});
submit("assistant", () => run("ask", { message: input("ask").value }));

if (auth) {
  input("user").value = auth.userId;
  input("org").value = auth.orgId;
  guard(startSession)();
} else render();
