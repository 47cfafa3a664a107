import type { FlowHost, InboundAdapter } from "@flowrt/engine";

export { notebook } from "./fixture-flows.js";

/** A form-encoded `POST /hooks/note` (outside basePath) that adds a note as the `user` it names. */
export const inbound: InboundAdapter<FlowHost>[] = [
  {
    source: "note-hook",
    createBindings: (host) => ({
      routes: [
        {
          method: "POST",
          path: "/hooks/note",
          handler: async (request) => {
            const form = new URLSearchParams(await request.text());
            const { requestId } = await host.dispatch({
              source: "note-hook",
              flowKind: "notebook",
              action: "addNote",
              input: { key: form.get("key"), title: form.get("title") },
              principal: { userId: form.get("user")! },
              responseEmitter: null,
            });
            return Response.json({ requestId }, { status: 202 });
          },
        },
      ],
    }),
  },
];
