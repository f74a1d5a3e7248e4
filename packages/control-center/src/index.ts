export { startControlCenter, type ControlCenterOptions, type RunningControlCenter } from './control-center.js';
export { buildServer, type ServerDeps } from './server.js';
export { LevelStore } from './storage/level/level-store.js';
export type { Store, StoredObject, StoreEvent } from './storage/store.js';
export { Registry } from './registry/registry.js';
export * as apierrors from './apierrors/status.js';
export * as field from './apierrors/field.js';
export { encodeProtobuf, decodeProtobuf } from './pipeline/protobuf.js';
export { versionInfo, HccVersion } from './discovery/discovery.js';
