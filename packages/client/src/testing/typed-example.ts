import { type ActionOutputOf, createFlowClient } from "@flowrt/client";
// Type-only: the server's flow definitions never reach the page's bundle.
import type { flows } from "./notebook-flows.js";

type Flows = typeof flows;

/** Adds a note through the typed client, follows the request to its end, then reads the session's notes. */
export async function addTypedNote(options: { baseUrl: string; user: string; title: string }) {
  const client = createFlowClient<Flows>({
    baseUrl: options.baseUrl,
    headers: { "x-user": options.user },
  });

  const session = await client.createSession("notebook", { title: "Typed notes" });
  // The flow id, the action name and the input ({ title: string; text?: string; pinned?: boolean }) are checked.
  const { requestId } = await client.invoke("notebook", "addNote", {
    sessionId: session.id,
    input: { title: options.title, pinned: true },
  });
  const seen: string[] = [];
  for await (const event of client.events(requestId)) seen.push(event.type);

  const request = await client.getRequest<ActionOutputOf<Flows, "notebook", "addNote">>(requestId);
  const snapshot = await client.snapshot<"notebook">(session.id);
  // Only refs whose client block grants something are accepted; items carry the notes schema's fields.
  const page = await client.resources(session.id, "notes").list({ limit: 20 });
  return {
    seen,
    topic: request.output?.topic,
    added: snapshot.clientData.session.added,
    notes: page.items.map((item) => ({ topic: item.topic, pinned: item.clientData?.pinned })),
  };
}
