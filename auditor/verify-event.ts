// auditor/verify-event.ts: `cookwala verify-event PROOF --policy POLICY [--keys CACHE] [--json]
// [--allow-legacy-signatures]` (docs/design.md §8): checks one EventProof file offline in O(log n) with
// verifier/bundle/event-proof.ts. Exit 0 when the event (or, without its payload, the entry) is proved,
// 1 when the proof fails (the reason code, seq and detail are printed), 2 for unusable input (an
// unreadable or non-JSON file, policy or key cache). A file starting with `c2sp.org/tlog-proof@v1`
// is read as a C2SP tlog-proof (verifier/c2sp/tlog-proof.ts) and checked against the same policy.

import { parseFlags, runCli, UsageError } from '../platform/index.ts';
import { InputError, readJsonFile, readKeyCacheFile, readPolicyFile } from './trust-files.ts';
import { verifyEventProof } from '../verifier/bundle/index.ts';
import { TLOG_PROOF_HEADER, verifyTlogProof } from '../verifier/c2sp/index.ts';
import { readFile } from 'node:fs/promises';

const USAGE = `usage: cookwala verify-event PROOF --policy POLICY [--keys CACHE] [--json] [--allow-legacy-signatures]

Verify one event proof ({"kind":"EventProof",…}, or a c2sp.org/tlog-proof@v1 file, both written
by \`cookwala proof\`) offline:
the entry and event hashes, the device signature, the inclusion in a witnessed checkpoint.
Exit 0 proved, 1 not proved, 2 unusable input.`;

export async function run(argv: string[]): Promise<number> {
  return runCli(argv, USAGE, async () => {
    const { values, positionals } = parseFlags(argv, {
      policy: { type: 'string' },
      keys: { type: 'string' },
      json: { type: 'boolean' },
      'allow-legacy-signatures': { type: 'boolean' },
    });
    if (positionals.length !== 1) throw new UsageError('give exactly one PROOF file');
    if (!values.policy) throw new UsageError('--policy POLICY is required');
    let proof: unknown;
    let policy;
    let keys;
    let tlog: Uint8Array | undefined;
    try {
      policy = await readPolicyFile(values.policy);
      keys = await readKeyCacheFile(values.keys);
      const raw = await readFile(positionals[0]).catch((e: Error) => {
        throw new InputError(`cannot read the event proof ${positionals[0]}: ${e.message}`);
      });
      if (raw.subarray(0, TLOG_PROOF_HEADER.length + 1).toString('utf8') === `${TLOG_PROOF_HEADER}\n`) tlog = new Uint8Array(raw);
      else proof = await readJsonFile(positionals[0], 'event proof');
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      process.stderr.write(`cookwala verify-event: ${e.message}\n`);
      return 2;
    }
    if (tlog) {
      const t = verifyTlogProof(tlog, policy, { keys, allowLegacy: values['allow-legacy-signatures'] });
      if (values.json) {
        const { ok: valid, ...rest } = t;
        process.stdout.write(JSON.stringify({ valid, format: 'tlog-proof', ...rest }, null, 2) + '\n');
      } else if (t.ok) {
        const v = t.value;
        process.stdout.write(
          `PROVED (c2sp.org/tlog-proof@v1): ${v.log} seq ${v.seq} (eventHash ${v.eventHash})\n` +
            `  signed by      ${v.signedBy ?? `NOT CHECKED: ${v.signatureNotChecked}`}\n` +
            `  checkpoint     size ${v.checkpoint.size}, cosigned by ${v.checkpoint.witnesses.join(', ') || 'none (policy quorum 0)'}\n`,
        );
      } else process.stdout.write(`NOT PROVED: ${t.code}${typeof t.seq === 'number' ? ` (seq ${t.seq})` : ''}: ${t.detail}\n`);
      return t.ok ? 0 : 1;
    }
    const r = verifyEventProof(proof, policy, { keys, allowLegacy: values['allow-legacy-signatures'] });
    if (values.json) {
      const { ok: valid, ...rest } = r;
      process.stdout.write(JSON.stringify({ valid, ...rest }, null, 2) + '\n');
    } else if (r.ok) {
      const v = r.value;
      process.stdout.write(
        `PROVED: ${v.log} seq ${v.seq} (eventHash ${v.eventHash})\n` +
          `  signed by      ${v.signedBy}${v.legacy ? ' (WEAKER: a legacy bare-hash signature, accepted by request)' : ''}\n` +
          `  payload        ${v.event ? 'included and matching' : 'not included (erased or withheld): the entry alone is proved'}\n` +
          `  checkpoint     seq ${v.checkpoint.seq}, root ${v.checkpoint.root}, witnesses ${v.checkpoint.witnesses.join(', ') || 'none (policy quorum 0)'}\n`,
      );
    } else {
      const seq = typeof r.seq === 'number' ? ` (seq ${r.seq})` : '';
      process.stdout.write(`NOT PROVED: ${r.code}${seq}: ${r.detail}\n`);
    }
    return r.ok ? 0 : 1;
  });
}
