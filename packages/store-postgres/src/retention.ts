import { DEFAULT_RETENTION, type RetentionOptions } from "@flowrt/core";

/** @deprecated Retention is the host's: use `RetentionOptions` from `@flowrt/core` with `createFlowHost({ retention })`. */
export type PostgresRetentionOptions = RetentionOptions;

/** @deprecated The one default is `DEFAULT_RETENTION` from `@flowrt/core`, which this is. */
export const DEFAULT_POSTGRES_RETENTION: Readonly<Required<RetentionOptions>> = DEFAULT_RETENTION;
