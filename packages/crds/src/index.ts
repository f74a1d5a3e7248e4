export * from './names.js';
export * from './types.js';
export * from './crds/index.js';
export * from './references.js';
export * from './schema-walk.js';
export * from './conditions.js';
export * from './resources.js';
export * from './json.js';
