// The flows module: what `createFlowHost({ flows })`, `flowrt serve src/flows.ts` and the page's typed client
// (`createFlowClient<typeof flows>`) take.
import { notebook } from "./flows/notebook.js";

export { notebook };
export const flows = [notebook];
