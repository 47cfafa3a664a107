import { concurrencyCases } from "./concurrency.js";
import { eventCases } from "./events.js";
import { fencingCases } from "./fencing.js";
import { isolationCases } from "./isolation.js";
import { requestEffectCases } from "./request-effects.js";
import { requestListingCases } from "./request-listing.js";
import { requestOwnSessionCases } from "./request-own-session.js";
import { requestRemovalCases } from "./request-removal.js";
import { requestCases } from "./requests.js";
import { resourceCappedCreateCases } from "./resource-capped-create.js";
import { resourceContentCases } from "./resource-content.js";
import { resourceListCases } from "./resource-list.js";
import { resourceListKeysetCases } from "./resource-list-keyset.js";
import { resourceListLeafCases } from "./resource-list-leaf.js";
import { resourceStateCases } from "./resource-state.js";
import { resourceStateTextCases } from "./resource-state-text.js";
import { retentionCases } from "./retention.js";
import { scheduleCases } from "./schedules.js";
import { scopeRemovalCases } from "./scope-removal.js";
import { scopeStateCases } from "./scope-state.js";
import { sessionLifecycleCases } from "./session-lifecycle.js";
import { sessionRemovalCases } from "./session-removal.js";
import { sessionCases } from "./sessions.js";

/** Every case of the suite, in the order they run. */
export const ALL_CASES = [
  ...sessionCases,
  ...sessionLifecycleCases,
  ...sessionRemovalCases,
  ...requestCases,
  ...requestListingCases,
  ...requestRemovalCases,
  ...requestOwnSessionCases,
  ...requestEffectCases,
  ...eventCases,
  ...retentionCases,
  ...scopeStateCases,
  ...scopeRemovalCases,
  ...resourceStateCases,
  ...resourceContentCases,
  ...resourceListCases,
  ...resourceListLeafCases,
  ...resourceListKeysetCases,
  ...resourceStateTextCases,
  ...isolationCases,
  ...concurrencyCases,
  ...resourceCappedCreateCases,
  ...fencingCases,
  ...scheduleCases,
] as const;
