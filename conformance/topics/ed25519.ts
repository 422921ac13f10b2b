// conformance/topics/ed25519.ts: Ed25519 (RFC 8032) vectors on BOTH CryptoBackends
// (verifier/crypto/node.ts and verifier/crypto/noble.ts), each run counted as a case:
// wycheproof-*_test.json verify groups (strict RFC 8032 §5.1.7: non-canonical S or point
// encodings are invalid, as the project requires); rfc8032-*.json and sign.input*.txt, where each
// backend must derive the public key, reproduce the signature byte for byte (EdDSA is
// deterministic), and verify it. Wycheproof "acceptable": see wycheproof.ts.

import path from 'node:path';
import { bytesEqual, toHex } from '../../verifier/encoding/index.ts';
import type { CryptoBackend } from '../../verifier/crypto/index.ts';
import { classify, isDocumentation, listFiles, readJson, readText } from '../files.ts';
import type { Tally } from '../tally.ts';
import type { TopicRunner } from '../topic.ts';
import { backends, runWycheproof, vectorHex, type WycheproofGroup } from './wycheproof.ts';

const PATTERNS = {
  wycheproof: /^wycheproof-[^/]*_test\.json$/,
  rfc8032: /^rfc8032-[^/]*\.json$/,
  signInput: /^sign\.input[^/]*\.txt$/,
};

interface SignCase {
  seed: Uint8Array;
  publicKey: Uint8Array;
  message: Uint8Array;
  signature: Uint8Array;
}

/** One backend must derive pk, reproduce the signature exactly, and verify it. */
function checkSign(file: string, id: string, c: SignCase, b: CryptoBackend, t: Tally): void {
  const pk = b.ed25519PublicKey(c.seed);
  if (!bytesEqual(pk, c.publicKey)) return t.fail(file, id, `public key ${toHex(c.publicKey)}`, toHex(pk));
  const sig = b.ed25519Sign(c.seed, c.message);
  if (!bytesEqual(sig, c.signature)) return t.fail(file, id, `signature ${toHex(c.signature)}`, toHex(sig));
  if (!b.ed25519Verify(c.publicKey, c.message, c.signature)) return t.fail(file, id, 'the signature verifies', 'invalid');
  t.pass(file, id);
}

function runSignCases(file: string, cases: Array<{ id: string; c: () => SignCase }>, t: Tally): void {
  const bs = backends();
  for (const { id, c } of cases) {
    let sc: SignCase;
    try {
      sc = c();
    } catch (e) {
      for (const b of bs) t.fail(file, `${id} [${b.name}]`, 'a well-formed vector', (e as Error).message);
      continue;
    }
    for (const b of bs) {
      const cid = `${id} [${b.name}]`;
      try {
        checkSign(file, cid, sc, b, t);
      } catch (e) {
        t.fail(file, cid, 'sign and verify', `threw ${(e as Error).message}`);
      }
    }
  }
}

function rfc8032Cases(doc: unknown): Array<{ id: string; c: () => SignCase }> {
  const vs = (doc as { vectors?: Array<Record<string, string>> })?.vectors;
  if (!Array.isArray(vs)) throw new Error('no vectors[]');
  return vs.map((v, i) => ({
    id: v.name ?? `#${i}`,
    c: () => ({
      seed: vectorHex(v.secretKey),
      publicKey: vectorHex(v.publicKey),
      message: vectorHex(v.message),
      signature: vectorHex(v.signature),
    }),
  }));
}

/** sign.input lines: hex(seed||pk):hex(pk):hex(msg):hex(sig||msg): */
function signInputCases(text: string): Array<{ id: string; c: () => SignCase }> {
  const out: Array<{ id: string; c: () => SignCase }> = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (line === '') return;
    out.push({
      id: `line ${i + 1}`,
      c: () => {
        const f = line.split(':');
        if (f.length !== 5 || f[4] !== '') throw new Error('not sk:pk:msg:sig: (4 fields and a trailing colon)');
        const skpk = vectorHex(f[0]);
        const pk = vectorHex(f[1]);
        const msg = vectorHex(f[2]);
        const sigmsg = vectorHex(f[3]);
        if (skpk.length !== 64 || !bytesEqual(skpk.subarray(32), pk)) throw new Error('first field is not seed||pk');
        if (sigmsg.length !== 64 + msg.length || !bytesEqual(sigmsg.subarray(64), msg)) throw new Error('fourth field is not sig||msg');
        return { seed: skpk.subarray(0, 32), publicKey: pk, message: msg, signature: sigmsg.subarray(0, 64) };
      },
    });
  });
  return out;
}

export const ed25519Topic: TopicRunner = {
  async run(dir, t) {
    const { byPattern, unclaimed } = classify(await listFiles(dir), PATTERNS);
    for (const f of unclaimed) if (!isDocumentation(f) && !/_schema[^/]*\.json$/.test(f)) t.ignore(f);
    for (const f of byPattern.wycheproof) {
      try {
        runWycheproof<Uint8Array>(
          f,
          await readJson(path.join(dir, f)),
          {
            key(g: WycheproofGroup) {
              const pk = (g.publicKey as { pk?: string } | undefined)?.pk;
              return pk === undefined ? { skip: 'group without publicKey.pk' } : { key: vectorHex(pk) };
            },
            verify: (b, pk, msg, sig) => b.ed25519Verify(pk, msg, sig),
          },
          t,
        );
      } catch (e) {
        t.fileError(f, (e as Error).message);
      }
    }
    for (const f of byPattern.rfc8032) {
      try {
        runSignCases(f, rfc8032Cases(await readJson(path.join(dir, f))), t);
      } catch (e) {
        t.fileError(f, (e as Error).message);
      }
    }
    for (const f of byPattern.signInput) {
      try {
        runSignCases(f, signInputCases(await readText(path.join(dir, f))), t);
      } catch (e) {
        t.fileError(f, (e as Error).message);
      }
    }
  },
};
