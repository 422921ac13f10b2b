// test/fuzz/targets.ts: one fuzz target per parser of untrusted input (docs/design.md §14): JSON
// text (strict-json), bundle lines (the streaming verifier, after a valid header), C2SP signed
// notes and checkpoint bodies, verifier keys, witness frames (length prefix) and request/reply
// messages, witness policies, key caches, and the sequencer's HTTP bodies in all three CloudEvents
// modes (structured, batch, binary). Each target takes one input (text, or bytes as base64) and
// returns a verdict; the property every target keeps: it never throws, never hangs, and every
// refusal carries a code from verifier/errors.ts (an HTTP answer: status < 500, problem+json with
// such a code, and nothing appended). Inputs come from a grammar-aware arbitrary (JSON-ish text,
// mutated valid documents) and raw strings. Used by test/fuzz.test.ts (corpus replay and a short
// run in `npm test`) and test/fuzz/run.ts (`npm run fuzz`, long runs that save what they find).

import fc from 'fast-check';
import { REASONS } from '../../verifier/errors.ts';
import { parseJson } from '../../verifier/encoding/strict-json.ts';
import { createBundleVerifier } from '../../verifier/bundle/verifier.ts';
import { parseNote } from '../../verifier/c2sp/note/signed.ts';
import { parseCheckpointBody } from '../../verifier/c2sp/note/checkpoint.ts';
import { parseVerifierKey } from '../../verifier/c2sp/note/keys.ts';
import { readFramePrefix } from '../../witness/wire/frame.ts';
import { parseReply, parseRequest } from '../../witness/wire/messages.ts';
import { readWitnessPolicy } from '../../verifier/documents/policy.ts';
import { readDocument } from '../../verifier/documents/read.ts';
import { generateLog } from '../../testkit/log-generator.ts';
import { startSequencer, logPath, type TestSequencer } from '../../testkit/sequencer.ts';
import { deviceKey } from '../../testkit/keys.ts';
import { makeEvent, signed } from '../../testkit/events.ts';

export interface Verdict {
  ok: boolean;
  code?: string;
}

export interface Target {
  name: string;
  /** Inputs for this target (strings; binary inputs are base64). */
  input: fc.Arbitrary<string>;
  run(input: string): Promise<Verdict> | Verdict;
  close?(): Promise<void>;
}

const isCode = (c: unknown) => typeof c === 'string' && Object.prototype.hasOwnProperty.call(REASONS, c);
function verdictOf(r: { ok: boolean; code?: string }): Verdict {
  if (!r.ok && !isCode(r.code)) throw new Error(`a refusal without a code of ours: ${JSON.stringify(r).slice(0, 200)}`);
  return r.ok ? { ok: true } : { ok: false, code: r.code };
}

// --- inputs: JSON-ish text, valid documents mutated, and raw strings
const jsonish = fc.oneof(
  fc.json({ depthSize: 'medium' }),
  fc.string({
    unit: fc.constantFrom('{', '}', '[', ']', '"', ':', ',', '\\', 'a', '0', ' ', 'u', '\u0000', 'é', '__proto__'),
    maxLength: 200,
  }),
  fc.string({ maxLength: 200 }),
);
function mutated(valid: string[]): fc.Arbitrary<string> {
  return fc
    .tuple(fc.constantFrom(...valid), fc.nat(), fc.nat(), fc.string({ maxLength: 12 }), fc.constantFrom('cut', 'insert', 'replace', 'dup'))
    .map(([v, a, b, s, how]) => {
      const i = a % (v.length + 1);
      const j = Math.min(v.length, i + (b % 20));
      if (how === 'cut') return v.slice(0, i);
      if (how === 'insert') return v.slice(0, i) + s + v.slice(i);
      if (how === 'dup') return v.slice(0, j) + v.slice(i, j) + v.slice(j);
      return v.slice(0, i) + s + v.slice(j);
    });
}
const bytesB64 = fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString('base64'));

let sample: ReturnType<typeof generateLog> | undefined;
let sampleLines: string[] = [];
function bundleSample() {
  if (!sample) {
    sample = generateLog({ events: 3, checkpointEvery: 3, witnesses: 1, quorum: 1 });
    sampleLines = [...sample.lines()]
      .join('')
      .split('\n')
      .filter((l) => l !== '');
  }
  return { g: sample, lines: sampleLines };
}

const NOTE =
  'example.com/log\n5\nqnxp7qLQPN0I3Z4pKx1Zw7xJWgM8sxvkVJKdh2tmt8o=\n\n— example.com/log Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n';
const VKEY = 'example.com/log+033e1d82+AeFKMNCdaZeY+Bh+2YAMDEXwkM5jQiBH7SC3kHfGBpeO';

export function targets(): Target[] {
  const list: Target[] = [
    { name: 'strict-json', input: jsonish, run: (s) => verdictOf(parseJson(s)) },
    {
      name: 'bundle-line',
      input: fc.oneof(jsonish, mutated(bundleSample().lines)),
      async run(s) {
        const { g, lines } = bundleSample();
        const v = createBundleVerifier({ policy: g.policy, keys: g.deviceKeys });
        for (const l of [lines[0], lines[1], s, ...lines.slice(2)]) {
          const p = v.line(l);
          if (p) await p;
        }
        const r = await v.end();
        for (const f of r.failures) if (!isCode(f.kind)) throw new Error(`a bundle failure without a code of ours: ${f.kind}`);
        return { ok: r.valid };
      },
    },
    { name: 'note', input: fc.oneof(fc.string({ maxLength: 200 }), mutated([NOTE])), run: (s) => verdictOf(parseNote(s)) },
    {
      name: 'checkpoint-body',
      input: fc.oneof(fc.string({ maxLength: 120 }), mutated(['example.com/log\n5\nqnxp7qLQPN0I3Z4pKx1Zw7xJWgM8sxvkVJKdh2tmt8o=\n'])),
      run: (s) => verdictOf(parseCheckpointBody(s)),
    },
    { name: 'vkey', input: fc.oneof(fc.string({ maxLength: 80 }), mutated([VKEY])), run: (s) => verdictOf(parseVerifierKey(s)) },
    {
      name: 'witness-frame-prefix',
      input: bytesB64,
      run(s) {
        const b = Buffer.from(s, 'base64');
        const r = readFramePrefix({ byteLength: b.length, get: (i) => b[i] });
        if ('incomplete' in r) return { ok: false };
        if ('len' in r) return { ok: true };
        return verdictOf(r);
      },
    },
    {
      name: 'witness-request',
      input: fc.oneof(
        jsonish,
        bytesB64.map((b) => `b64:${b}`),
      ),
      run: (s) => verdictOf(parseRequest(s.startsWith('b64:') ? Buffer.from(s.slice(4), 'base64') : Buffer.from(s))),
    },
    {
      name: 'witness-reply',
      input: fc.oneof(
        jsonish,
        bytesB64.map((b) => `b64:${b}`),
      ),
      run: (s) => verdictOf(parseReply(s.startsWith('b64:') ? Buffer.from(s.slice(4), 'base64') : Buffer.from(s))),
    },
    {
      name: 'policy',
      input: fc.oneof(jsonish, mutated([JSON.stringify(bundleSample().g.policy)])),
      run(s) {
        const j = parseJson(s);
        return verdictOf(j.ok ? readWitnessPolicy(j.value) : j);
      },
    },
    {
      name: 'key-cache',
      input: fc.oneof(jsonish, mutated([JSON.stringify({ kind: 'KeyCache', keys: bundleSample().g.deviceKeys.slice(0, 2) })])),
      run(s) {
        const j = parseJson(s);
        return verdictOf(j.ok ? readDocument('KeyCache', j.value) : j);
      },
    },
  ];
  list.push(...httpTargets());
  return list;
}

/** The sequencer's ingest in its three CloudEvents modes, over fastify inject on a real data dir. */
function httpTargets(): Target[] {
  let t: TestSequencer | undefined;
  const dev = deviceKey(777);
  let n = 0;
  const seq = async () => (t ??= await startSequencer({ devices: [dev] }));
  const good = signed(makeEvent({ source: dev.owner, id: 'fuzz-good', data: { a: 1 } }), dev);
  const judge = async (
    res: { statusCode: number; headers: Record<string, unknown>; body: string },
    before: number,
    after: number,
  ): Promise<Verdict> => {
    if (res.statusCode >= 500) throw new Error(`HTTP ${res.statusCode}: ${res.body.slice(0, 200)}`);
    if (res.statusCode >= 400) {
      if (!String(res.headers['content-type']).includes('application/problem+json'))
        throw new Error(`HTTP ${res.statusCode} without problem+json`);
      const code = JSON.parse(res.body).code;
      if (!isCode(code)) throw new Error(`HTTP ${res.statusCode} code ${code} is not ours`);
      if (after !== before) throw new Error(`a refused request appended (${before} -> ${after})`);
      return { ok: false, code };
    }
    return { ok: true };
  };
  const close = async () => {
    await t?.close();
    t = undefined;
  };
  const post = async (headers: Record<string, string>, payload: string) => {
    const s = await seq();
    const before = s.headSeq();
    const res = await s.seq.app.inject({
      method: 'POST',
      url: logPath(s.log, '/events'),
      headers: { 'idempotency-key': `fuzz-${++n}`, ...headers },
      payload,
    });
    return judge(res, before, s.headSeq());
  };
  return [
    {
      name: 'http-structured',
      input: fc.oneof(jsonish, mutated([JSON.stringify(good)])),
      run: (s) => post({ 'content-type': 'application/cloudevents+json' }, s),
      close,
    },
    {
      name: 'http-batch',
      input: fc.oneof(jsonish, mutated([JSON.stringify([good])])),
      run: (s) => post({ 'content-type': 'application/cloudevents-batch+json' }, s),
      close,
    },
    {
      name: 'http-binary',
      input: fc
        .tuple(
          fc.dictionary(
            fc.constantFrom(
              'ce-specversion',
              'ce-id',
              'ce-source',
              'ce-type',
              'ce-time',
              'ce-cookwalaseq',
              'ce-cookwalasig',
              'ce-subject',
              'ce-x-acme',
              'ce-datacontenttype',
              'content-type',
            ),
            fc.string({ unit: fc.constantFrom('1', '.', '0', 'a', ':', '/', '-', ' '), maxLength: 12 }),
            { maxKeys: 8 },
          ),
          fc.oneof(jsonish, fc.constant('')),
        )
        .map(([h, body]) => JSON.stringify({ h: { 'ce-specversion': '1.0', 'ce-id': 'x', ...h }, body })),
      run(s) {
        const { h, body } = JSON.parse(s) as { h: Record<string, string>; body: string };
        return post(h, body);
      },
      close,
    },
  ];
}
