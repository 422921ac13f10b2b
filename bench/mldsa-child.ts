// bench/mldsa-child.ts: the node:crypto ML-DSA-44 rates measured on another Node (bench/mldsa.ts
// runs it with a Node 24 binary when the bench's own Node has no ML-DSA-44 in node:crypto).
// Prints one JSON line: {node, impl, signPerSec, verifyPerSec}, or {node, impl:"noble"} when this
// Node has no ML-DSA-44 either. Argument: the milliseconds per figure.

import { createNodeBackend } from '../verifier/crypto/node.ts';
import { backendRates } from './mldsa-rates.ts';

const ms = Number(process.argv[2] ?? 1500);
const b = createNodeBackend();
const impl = b.mldsa44Impl;
console.log(JSON.stringify({ node: process.versions.node, impl, ...(impl === 'node' ? backendRates(b, ms) : {}) }));
