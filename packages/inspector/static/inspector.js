// The flowrt development inspector: plain DOM, no framework, no build step. It reads the inspector's JSON routes
// and follows a running request's event stream on the HTTP API (`GET {api}/requests/:id/stream`).

const api = document.querySelector('meta[name="flowrt-api"]').content;
const root = document.querySelector('meta[name="flowrt-inspector"]').content;
const TERMINAL = new Set(["request.completed", "request.failed", "request.aborted"]);
const $ = (id) => document.getElementById(id);

/** The credentials the page sends (the Authorization header), kept for this tab only. */
let authorization = sessionStorage.getItem("flowrt-inspector-authorization") ?? "";
/** The stream followed now; aborted when another request is shown. */
let following = null;

function headers() {
  return authorization ? { authorization } : {};
}

/** Builds an element: `el("li", { class: "x", onclick }, "text", child)`. Text goes in as text, never as HTML. */
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(name, value);
  }
  for (const child of children) node.append(child instanceof Node ? child : String(child ?? ""));
  return node;
}

function showError(problem) {
  const box = $("error");
  if (!problem) {
    box.hidden = true;
    box.textContent = "";
    return;
  }
  box.hidden = false;
  box.textContent = `${problem.status ?? ""} ${problem.code ?? "error"}: ${problem.detail ?? problem.title ?? ""}`;
}

async function read(path) {
  const response = await fetch(`${root}/api${path}`, { headers: headers(), cache: "no-store" });
  const body = await response.json().catch(() => ({ status: response.status, code: "invalid-response" }));
  if (!response.ok) {
    showError(body);
    throw new Error(body.code ?? String(response.status));
  }
  return body;
}

function link(text, onclick, dataset = {}) {
  return el("button", { type: "button", class: "link", onclick, dataset }, text);
}

function statusBadge(status) {
  return el("span", { class: `status ${status}` }, status);
}

function failureText(request) {
  if (!request.error) return "";
  const block = request.failedBlock
    ? ` in block ${request.failedBlock.block} (${request.failedBlock.kind})`
    : "";
  return `${request.error.code}: ${request.error.message}${block}`;
}

function pretty(value) {
  return JSON.stringify(value, null, 2);
}

function renderFlows({ flows }) {
  const list = $("flows");
  const select = $("filter-flow");
  list.replaceChildren();
  for (const flow of flows) {
    const actions = el("ul", { class: "actions" });
    for (const action of flow.actions) {
      actions.append(
        el(
          "li",
          { dataset: { action: action.name } },
          `${action.name} → ${action.block} (${action.blockKind})`,
        ),
      );
    }
    for (const hook of flow.webhooks) {
      actions.append(el("li", { class: "muted" }, `webhook ${hook.provider}:${hook.event} → ${hook.block}`));
    }
    const resources = flow.resources.map((r) => `${r.accessor} (${r.type}, ${r.scope})`).join(", ");
    list.append(
      el(
        "li",
        { dataset: { flow: flow.id } },
        el("strong", {}, flow.id),
        flow.kind === flow.id ? "" : ` (${flow.kind})`,
        flow.protected ? "" : el("span", { class: "muted" }, " open: no resolver"),
        actions,
        resources ? el("div", { class: "muted" }, `resources: ${resources}`) : "",
      ),
    );
    if (![...select.options].some((option) => option.value === flow.id)) {
      select.append(el("option", { value: flow.id }, flow.id));
    }
  }
}

async function loadSessions() {
  const query = new URLSearchParams();
  const userId = $("filter-user").value.trim();
  const flowId = $("filter-flow").value;
  if (userId) query.set("userId", userId);
  if (flowId) query.set("flowId", flowId);
  const { sessions } = await read(`/sessions?${query}`);
  const list = $("sessions");
  list.replaceChildren(
    ...sessions.map((session) =>
      el(
        "li",
        { dataset: { session: session.id } },
        link(session.title ?? session.id, () => showSession(session.id)),
        el("span", { class: "muted" }, ` ${session.flowId ?? session.flowKind} · ${session.userId}`),
      ),
    ),
  );
  if (sessions.length === 0) list.append(el("li", { class: "muted" }, "no sessions"));
}

function renderRequestRow(request) {
  return el(
    "li",
    { dataset: { request: request.id } },
    link(`${request.action}`, () => showRequest(request.id)),
    " ",
    statusBadge(request.status),
    el("span", { class: "muted" }, ` ${request.createdAt}`),
    request.error ? el("div", { class: "failure" }, failureText(request)) : "",
  );
}

async function showSession(sessionId) {
  const session = await read(`/sessions/${encodeURIComponent(sessionId)}`);
  showError(null);
  $("session-panel").hidden = false;
  $("session-id").textContent = session.session.id;
  $("session-state").textContent = pretty(session.state);
  const resources = $("resources");
  resources.replaceChildren();
  for (const [accessor, value] of Object.entries(session.resources)) {
    resources.append(
      el("li", { dataset: { resource: accessor } }, el("strong", {}, accessor), el("pre", {}, pretty(value))),
    );
  }
  $("requests").replaceChildren(...session.requests.map(renderRequestRow));
  if (session.requests.length === 0) $("requests").append(el("li", { class: "muted" }, "no requests"));
}

function renderEvent(event) {
  const { seq, type, at, requestId, ...data } = event;
  const details = Object.keys(data).length > 0 ? ` ${JSON.stringify(data)}` : "";
  return el(
    "li",
    { dataset: { seq: String(seq), type } },
    el("code", {}, type),
    el("span", { class: "muted" }, details),
  );
}

function renderRequest({ request, events }) {
  $("request-panel").hidden = false;
  $("request-id").textContent = request.id;
  $("request-status").replaceWith(Object.assign(statusBadge(request.status), { id: "request-status" }));
  const failure = $("request-failure");
  failure.hidden = !request.error;
  failure.textContent = request.error ? failureText(request) : "";
  $("events").replaceChildren(
    ...events.map((event) => renderEvent({ ...event.data, seq: event.seq, type: event.type, at: event.at })),
  );
}

async function showRequest(requestId) {
  following?.abort();
  following = null;
  const detail = await read(`/requests/${encodeURIComponent(requestId)}`);
  showError(null);
  renderRequest(detail);
  const ended = detail.events.some((event) => TERMINAL.has(event.type));
  if (!ended) void follow(requestId, detail.events.at(-1)?.seq ?? 0);
}

/** Follows the request's SSE stream from `afterSeq`, appending each event, then reloads its record at the end. */
async function follow(requestId, afterSeq) {
  const controller = new AbortController();
  following = controller;
  $("request-live").hidden = false;
  try {
    const response = await fetch(
      `${api}/requests/${encodeURIComponent(requestId)}/stream?after=${afterSeq}`,
      {
        headers: { ...headers(), accept: "text/event-stream" },
        signal: controller.signal,
      },
    );
    if (!response.ok || !response.body) {
      showError(await response.json().catch(() => ({ status: response.status, code: "stream-failed" })));
      return;
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end = buffer.indexOf("\n\n");
      while (end >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = frame
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trimStart())
          .join("\n");
        if (data) $("events").append(renderEvent(JSON.parse(data)));
        end = buffer.indexOf("\n\n");
      }
    }
  } catch (error) {
    if (controller.signal.aborted) return;
    showError({ code: "stream-failed", detail: String(error) });
  } finally {
    if (following === controller) {
      following = null;
      $("request-live").hidden = true;
    }
  }
  if (!controller.signal.aborted) {
    renderRequest(await read(`/requests/${encodeURIComponent(requestId)}`));
    await Promise.all([loadFailures(), loadDeliveries()]);
  }
}

async function loadFailures() {
  const { requests } = await read("/requests?status=failed");
  $("failures").replaceChildren(...requests.map(renderRequestRow));
  if (requests.length === 0) $("failures").append(el("li", { class: "muted" }, "no failed requests"));
}

async function loadDeliveries() {
  const { requests } = await read("/requests?origin=webhook");
  $("deliveries").replaceChildren(
    ...requests.map((request) => {
      const row = renderRequestRow(request);
      row.prepend(el("code", {}, request.deliveryId ?? "no delivery id"), " ");
      return row;
    }),
  );
  if (requests.length === 0) $("deliveries").append(el("li", { class: "muted" }, "no deliveries"));
}

async function loadAll() {
  showError(null);
  renderFlows(await read("/flows"));
  await Promise.all([loadSessions(), loadFailures(), loadDeliveries()]);
}

$("authorization").value = authorization;
$("credentials").addEventListener("submit", (event) => {
  event.preventDefault();
  authorization = $("authorization").value.trim();
  sessionStorage.setItem("flowrt-inspector-authorization", authorization);
  void loadAll().catch(() => {});
});
$("session-filter").addEventListener("submit", (event) => {
  event.preventDefault();
  void loadSessions().catch(() => {});
});
void loadAll().catch(() => {});
