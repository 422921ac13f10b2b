#!/usr/bin/env node
// The `cookwala` command: loads the TypeScript sources through tsx (no build step), the Node 20
// polyfills, then dispatches to each part's command module (bin/main.ts).
import { register } from 'tsx/esm/api';

register();
await import('./polyfill.ts');
const { main } = await import('./main.ts');
process.exitCode = await main(process.argv.slice(2));
