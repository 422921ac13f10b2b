// bin/heap-bounds.d.ts: the types of bin/heap-bounds.js (the heap flags of the auditor's commands).
export declare const BOUNDED_HEAP: Readonly<Record<'verify' | 'verify-event' | 'verify-fork', readonly string[]>>;
