#!/usr/bin/env node
// The hcc command. The TypeScript sources build to ../dist (npm run build).
import { existsSync } from 'node:fs';
const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(main)) {
  console.error('hcc: not built yet; run `npm run build` in the repository root first');
  process.exit(1);
}
await import(main.href);
