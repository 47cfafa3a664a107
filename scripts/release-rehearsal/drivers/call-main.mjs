// Calls the `main()` the engine README's example (written beside this file as example.mts) exports.
const { main } = await import("./example.mts");
console.log(JSON.stringify(await main()));
