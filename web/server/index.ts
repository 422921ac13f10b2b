// web/server/index.ts: the public surface of web/server/ for the other layers (docs/design.md §2): what
// other folders may import from here. Files inside web/ import each other directly.
export { DIST_DIR, registerPage, sendPage } from './pages.ts';
