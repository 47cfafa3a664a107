// Imports the core README's example (written beside this file as flow.mts) and lists the flows it exports.
const flows = await import("./flow.mts");
for (const [name, flow] of Object.entries(flows)) {
  console.log(
    `${name}: flow "${flow.id}" (kind ${flow.kind}), actions ${Object.keys(flow.actions).join(", ")}`,
  );
}
