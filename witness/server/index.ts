// witness/server/index.ts: the public surface of witness/server/ for the other layers (docs/design.md §2): what
// other folders may import from here. Files inside witness/ import each other directly.
export { admitLog } from './config.ts';
export { initWitnessDir, loadWitnessDir, saveWitnessConfig } from './data-dir.ts';
