// auditor/verify-disclosure.ts: `cookwala verify-disclosure REVEAL --proof PROOF --policy POLICY
// [--keys CACHE] [--json]` (Core 0.2 §5, §8; docs/devices.md "Selective disclosure"): offline, the
// EventProof (written by `cookwala proof`, with or without the payload) proves the entry under a
// witnessed checkpoint and checks the device signature over its eventHash
// (verifier/bundle/event-proof.ts); the DisclosureReveal (written by `cookwala device reveal`)
// must then hash to that eventHash and open the digest at its pointer
// (verifier/documents/disclosure-reveal.ts). The sequencer's payload is not needed, so an erased
// payload does not stop a reveal. Exit 0 the value is proved, 1 refused (reason code and detail),
// 2 unusable input.

import { parseFlags, runCli, UsageError } from '../platform/index.ts';
import { InputError, readJsonFile, readKeyCacheFile, readPolicyFile } from './trust-files.ts';
import { verifyEventProof } from '../verifier/bundle/index.ts';
import { verifyDisclosureReveal } from '../verifier/documents/index.ts';

const USAGE = `usage: cookwala verify-disclosure REVEAL --proof PROOF --policy POLICY [--keys CACHE] [--json]

Check one revealed value ({"kind":"DisclosureReveal",…} from \`cookwala device reveal\`) against the
logged, signed event: PROOF (from \`cookwala proof\`) proves the entry and its device signature under a
witnessed checkpoint; the revealed event must hash to the entry's eventHash and
sha256(JCS([salt, value])) must be the digest at the reveal's pointer. Works after the payload is
erased. Exit 0 proved, 1 refused, 2 unusable input.`;

export async function run(argv: string[]): Promise<number> {
  return runCli(argv, USAGE, async () => {
    const { values, positionals } = parseFlags(argv, {
      proof: { type: 'string' },
      policy: { type: 'string' },
      keys: { type: 'string' },
      json: { type: 'boolean' },
    });
    if (positionals.length !== 1) throw new UsageError('give exactly one REVEAL file');
    if (!values.proof) throw new UsageError('--proof PROOF is required (cookwala proof --seq N writes it)');
    if (!values.policy) throw new UsageError('--policy POLICY is required');
    let reveal: unknown;
    let proof: unknown;
    let policy;
    let keys;
    try {
      policy = await readPolicyFile(values.policy);
      keys = await readKeyCacheFile(values.keys);
      proof = await readJsonFile(values.proof, 'event proof');
      reveal = await readJsonFile(positionals[0], 'reveal');
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      process.stderr.write(`cookwala verify-disclosure: ${e.message}\n`);
      return 2;
    }
    const p = verifyEventProof(proof, policy, { keys });
    const r = p.ok ? verifyDisclosureReveal(reveal, p.value.eventHash) : p;
    if (values.json) {
      const { ok: valid, ...rest } = r;
      process.stdout.write(JSON.stringify({ valid, ...rest }, null, 2) + '\n');
    } else if (r.ok && p.ok) {
      process.stdout.write(
        `PROVED: ${r.value.pointer} of ${p.value.log} seq ${p.value.seq} (${r.value.source} ${r.value.id}) is ${JSON.stringify(r.value.value)}\n` +
          `  signed by      ${p.value.signedBy}\n` +
          `  payload        ${p.value.event ? 'in the proof' : 'not in the proof (erased or withheld): the device revealed the event'}\n`,
      );
    } else if (!r.ok) process.stdout.write(`NOT PROVED: ${r.code}: ${r.detail}\n`);
    return r.ok ? 0 : 1;
  });
}
