export {
  createFsStores,
  DEFAULT_FS_RETENTION,
  type FsRetentionOptions,
  type FsStoresOptions,
} from "./create-fs-stores.js";
