import { createFlowClient, isFlowClientError, isStreamEvent } from "@flowrt/client";

/** Adds a note through the notebook flow, follows the request live, then shows the notes. */
export async function addNote(options: {
  baseUrl: string;
  getToken: () => Promise<string>;
  show: (line: string) => void;
  title: string;
}) {
  const { show } = options;
  const client = createFlowClient({
    baseUrl: options.baseUrl,
    // Called before every request and every stream reconnect, so an expired token is replaced.
    headers: async () => ({ authorization: `Bearer ${await options.getToken()}` }),
  });

  const session = await client.createSession("notebook", { title: "My notes" });
  const { requestId } = await client.invoke("notebook", "addNote", {
    sessionId: session.id,
    input: { key: "todo-1", title: options.title },
  });

  // Resumes with Last-Event-ID if the connection drops; ends after the terminal event.
  for await (const event of client.events(requestId)) {
    if (isStreamEvent(event, "resource_change")) show(`${event.ref} ${event.topic} ${event.change}`);
    if (isStreamEvent(event, "state_change"))
      show(`${event.scope} state ${JSON.stringify(event.clientData)}`);
    if (isStreamEvent(event, "request.failed")) show(`failed: ${event.error.message}`);
  }

  const snapshot = await client.snapshot(session.id);
  show(`notes added: ${JSON.stringify(snapshot.clientData.session?.added)}`);

  const notes = client.resources<{ title: string }>(session.id, "notes");
  const page = await notes.list({ limit: 20 });
  for (const item of page.items) show(`${item.topic}: ${item.clientData?.title}`);

  try {
    await notes.create({ topic: "todo-1", content: "again" });
  } catch (error) {
    if (!isFlowClientError(error) || error.code !== "topic-exists") throw error;
    show(`not created: ${error.detail}`);
  }
}
