// What the client README's page does with its example (written beside this file as notes.mts), in Node:
// the server's origin is the first argument, the token names the caller, lines go to stdout.
import { addNote } from "./notes.mts";

await addNote({
  baseUrl: process.argv[2],
  getToken: async () => "ada",
  show: (line) => console.log(line),
  title: "Buy milk",
});
