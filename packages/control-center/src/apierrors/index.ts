export * as field from './field.js';
export * from './status.js';
