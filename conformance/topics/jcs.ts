// conformance/topics/jcs.ts: RFC 8785 (JCS) vectors through verifier/encoding/jcs.ts canonicalize():
// input/*.json against output/*.json of the same name (exact UTF-8 bytes) and outhex/*.txt (the same
// bytes as hex); es6-numbers-*.txt (IEEE-754 bits -> ECMAScript number string, RFC 8785 §3.2.2.3);
// number-samples.json (`expected: null` = canonicalization must fail, for NaN and the infinities).
// Input JSON is parsed with JSON.parse, which is what JCS is defined over (IEEE-754 doubles).

import path from 'node:path';
import { canonicalize } from '../../verifier/encoding/index.ts';
import { bytesEqual, decodeUtf8, toHex, utf8 } from '../../verifier/encoding/index.ts';
import { classify, isDocumentation, listFiles, readBytes, readJson, readText } from '../files.ts';
import type { Tally } from '../tally.ts';
import type { TopicRunner } from '../topic.ts';

const PATTERNS = {
  input: /^input\/[^/]+\.json$/,
  output: /^output\/[^/]+\.json$/,
  outhex: /^outhex\/[^/]+\.txt$/,
  es6: /^es6-numbers-[^/]*\.txt$/,
  samples: /^number-samples[^/]*\.json$/,
};

/** An IEEE-754 double from its 64-bit pattern in hex (leading zeros may be omitted). */
export function doubleFromHex(hex: string): number {
  if (!/^[0-9a-fA-F]{1,16}$/.test(hex)) throw new Error(`not a 64-bit hex pattern: ${hex}`);
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt('0x' + hex));
  return view.getFloat64(0);
}

function hexBytes(text: string): Uint8Array {
  const parts = text.split(/\s+/).filter(Boolean);
  return Uint8Array.from(
    parts.map((p) => {
      if (!/^[0-9a-fA-F]{2}$/.test(p)) throw new Error(`not a hex byte: ${p}`);
      return parseInt(p, 16);
    }),
  );
}

/** Bytes for a failure line: their text, or their hex when they are not UTF-8 (display only). */
function shownBytes(b: Uint8Array): string {
  const d = decodeUtf8(b);
  return d.ok ? d.value : `(not UTF-8) ${toHex(b)}`;
}

function stem(rel: string): string {
  return path.basename(rel).replace(/\.[^.]+$/, '');
}

async function runPairs(dir: string, inputs: string[], outputs: string[], outhex: string[], t: Tally): Promise<void> {
  const outByStem = new Map(outputs.map((f) => [stem(f), f]));
  const hexByStem = new Map(outhex.map((f) => [stem(f), f]));
  const used = new Set<string>();
  for (const input of inputs) {
    const id = stem(input);
    let canonical: Uint8Array | undefined;
    try {
      const r = canonicalize(await readJson(path.join(dir, input)));
      if (!r.ok) {
        t.fail(input, id, 'a canonical form', `${r.code}: ${r.detail}`);
        continue;
      }
      canonical = utf8(r.value);
    } catch (e) {
      t.fileError(input, (e as Error).message);
      continue;
    }
    const out = outByStem.get(id);
    const hex = hexByStem.get(id);
    if (!out && !hex) t.skip(input, id, 'no output/ or outhex/ file of the same name');
    if (out) {
      used.add(out);
      const want = await readBytes(path.join(dir, out));
      if (bytesEqual(want, canonical)) t.pass(out, id);
      else t.fail(out, id, shownBytes(want), shownBytes(canonical));
    }
    if (hex) {
      used.add(hex);
      try {
        const want = hexBytes(await readText(path.join(dir, hex)));
        if (bytesEqual(want, canonical)) t.pass(hex, id);
        else t.fail(hex, id, toHex(want), toHex(canonical));
      } catch (e) {
        t.fileError(hex, (e as Error).message);
      }
    }
  }
  for (const f of [...outputs, ...outhex]) if (!used.has(f)) t.fail(f, stem(f), 'an input/ file of the same name', 'none');
}

function canonicalNumber(n: number): { ok: true; s: string } | { ok: false; why: string } {
  const r = canonicalize(n);
  return r.ok ? { ok: true, s: r.value } : { ok: false, why: `${r.code}: ${r.detail}` };
}

async function runEs6(dir: string, file: string, t: Tally): Promise<void> {
  const lines = (await readText(path.join(dir, file))).split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, '');
    if (line === '') continue;
    const id = `line ${i + 1}`;
    await t.guard(file, id, 'hexbits,expected', () => {
      const comma = line.indexOf(',');
      if (comma < 0) throw new Error(`not "hex,expected": ${line}`);
      const n = doubleFromHex(line.slice(0, comma));
      const want = line.slice(comma + 1);
      const got = canonicalNumber(n);
      t.check(file, `${id} (${line.slice(0, comma)})`, want, got.ok ? got.s : `refused (${got.why})`);
    });
  }
}

async function runSamples(dir: string, file: string, t: Tally): Promise<void> {
  const doc = (await readJson(path.join(dir, file))) as { cases?: Array<{ ieeeHex: string; expected: string | null }> };
  if (!Array.isArray(doc?.cases)) throw new Error('no cases[]');
  for (const [i, c] of doc.cases.entries()) {
    const id = `#${i} ${c.ieeeHex}`;
    await t.guard(file, id, String(c.expected), () => {
      const got = canonicalNumber(doubleFromHex(c.ieeeHex));
      if (c.expected === null) t.check(file, id, 'canonicalization fails', got.ok ? `serialized as ${got.s}` : 'canonicalization fails');
      else t.check(file, id, c.expected, got.ok ? got.s : `refused (${got.why})`);
    });
  }
}

export const jcsTopic: TopicRunner = {
  async run(dir, t) {
    const { byPattern, unclaimed } = classify(await listFiles(dir), PATTERNS);
    for (const f of unclaimed) if (!isDocumentation(f)) t.ignore(f);
    await runPairs(dir, byPattern.input, byPattern.output, byPattern.outhex, t);
    for (const f of byPattern.es6) {
      try {
        await runEs6(dir, f, t);
      } catch (e) {
        t.fileError(f, (e as Error).message);
      }
    }
    for (const f of byPattern.samples) {
      try {
        await runSamples(dir, f, t);
      } catch (e) {
        t.fileError(f, (e as Error).message);
      }
    }
  },
};
