// verifier/encoding/own-member.ts: reading and writing members of objects built from untrusted names
// (docs/design.md §3: every member name is an ordinary string, `__proto__` included). `o[k] = v` with
// k = "__proto__" calls Object.prototype's setter: it sets the prototype and adds no member, so the
// member vanishes from Object.keys, JSON.stringify and every hash, while lookups see the values
// it smuggled in. `k in o` and `o[k]` see the prototype chain (`"toString" in {}` is true). These
// two helpers are the only spelling this project uses where a name comes from outside. Left out:
// spreads and Object.fromEntries, which already define own members (CreateDataProperty).

/** True when o has k as its own member (never an inherited one such as `toString`). */
export function hasMember(o: object, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

/** o[k] = v as an own, enumerable member for every k, `__proto__` included. */
export function setMember(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}
