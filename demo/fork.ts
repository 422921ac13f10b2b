// demo/fork.ts: step 6 of the demo, `--fork` (docs/design.md §4, §7; Core §5): the sequencer's own key
// signs a conflicting checkpoint (the seq the witnesses cosigned last, another head and root) and
// the demo, acting as a misbehaving sequencer, sends it over the witness protocol
// (`/cookwala/witness/1.0.0`, witness/client/connection.ts) to every witness but the last. Each refuses it with
// fork_detected and a ForkProof (the checkpoint it cosigned against this one); the last witness,
// never asked, must learn the proof by gossip (`/cookwala/forks/1`). The demo waits until every
// witness's status API (GET /v1/forks) lists it, writes DIR/fork-proof.json and shows
// `cookwala verify-fork` proving it offline.
// Invariant: a witness that cosigns the conflicting checkpoint is a failure, never "proven".
// Left out: showing the sequencer process itself forking (the demo forges with its key instead).

import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { buildCheckpoint, type Checkpoint } from '../verifier/documents/index.ts';
import { formatHash, formatTime } from '../verifier/encoding/index.ts';
import { createSigner, type SecretKey } from '../verifier/signing/index.ts';
import type { ForkProof } from '../verifier/documents/index.ts';
import { createP2pNode, type P2pNode } from '../witness/wire/index.ts';
import { loadOrCreatePeerKey } from '../witness/wire/index.ts';
import { createWitnessConnection } from '../witness/client/index.ts';
import { TOPICS } from '../witness/wire/index.ts';
import type { AddCheckpointRequest } from '../witness/wire/index.ts';
import type { DemoContext, Network, WitnessNode } from './context.ts';
import { getJson } from './http.ts';
import { readJsonFile, writeJsonFile } from './network.ts';
import { indent } from './audit.ts';
import { DemoError, waitFor } from './wait.ts';

export interface ForkResult {
  proven: boolean;
  proofPath: string;
  seq: number;
}

interface WitnessLogState {
  log: string;
  seq: number | null;
  checkpoint: Checkpoint | null;
}

async function witnessSeq(w: WitnessNode, log: string, signal: AbortSignal): Promise<number | undefined> {
  const j = await getJson<{ logs: WitnessLogState[] }>(`${w.http}/v1/logs`, signal);
  const s = j?.logs?.find((l) => l.log === log)?.seq;
  return typeof s === 'number' ? s : undefined;
}

async function forksOf(w: WitnessNode, log: string, signal: AbortSignal): Promise<ForkProof[]> {
  const j = await getJson<{ forks: ForkProof[] }>(`${w.http}/v1/forks`, signal);
  return (j?.forks ?? []).filter((f) => f.log === log);
}

/** A head and root no honest tree of this log has: hashes of a label (deterministic per seq). */
export function forgedTree(seq: number): { head: string; root: string } {
  const h = (s: string) => formatHash(createHash('sha256').update(s).digest());
  return { head: h(`cookwala demo: forged head at ${seq}`), root: h(`cookwala demo: forged root at ${seq}`) };
}

const MAX_ROUNDS = 5;

/** The seq every witness holds for the log (they must agree: the forgery contradicts that one). */
async function agreedSeq(ctx: DemoContext, net: Network): Promise<number> {
  const seqs = await waitFor(
    'the witnesses to agree on the latest cosigned seq',
    async () => {
      const s = await Promise.all(net.witnesses.map((w) => witnessSeq(w, ctx.opts.log, ctx.signal)));
      return s.every((x) => x !== undefined && x === s[0]) ? (s as number[]) : undefined;
    },
    { timeoutMs: 20_000, intervalMs: 200, signal: ctx.signal },
  );
  return seqs[0];
}

/** One add-checkpoint request: the ForkProof of a fork_detected refusal, or 'moved' for conflict. */
async function ask(node: P2pNode, w: WitnessNode, req: AddCheckpointRequest, ctx: DemoContext): Promise<ForkProof | 'moved'> {
  const logPath = join(ctx.sup.logsDir, `${w.name}.log`);
  const conn = createWitnessConnection(node, w.multiaddrs[0], { timeoutMs: 10_000, dialTimeoutMs: 10_000 });
  try {
    const r = await conn.request(req);
    if (!r.ok) throw new DemoError(`${w.name} could not be asked: ${r.code}: ${r.detail}`, logPath);
    const reply = r.value;
    if (reply.ok) throw new DemoError(`${w.name} COSIGNED the conflicting checkpoint at seq ${req.checkpoint.seq}`, logPath);
    if (reply.code === 'conflict' && (reply.knownSeq ?? 0) > req.checkpoint.seq) return 'moved';
    if (reply.code !== 'fork_detected' || !reply.forkProof)
      throw new DemoError(`${w.name} answered ${reply.code} (${reply.detail}), not fork_detected with a ForkProof`, logPath);
    return reply.forkProof;
  } finally {
    await conn.close();
  }
}

export async function demonstrateFork(ctx: DemoContext, net: Network): Promise<ForkResult> {
  const { log } = ctx.opts;
  const key = await readJsonFile<SecretKey>(join(net.sequencerDir, 'sequencer.key.json'));
  const signer = createSigner(key);
  const asked = net.witnesses.length > 1 ? net.witnesses.slice(0, -1) : net.witnesses;
  const bystander = net.witnesses.length > 1 ? net.witnesses[net.witnesses.length - 1] : undefined;
  const node = await createP2pNode({
    privateKey: await loadOrCreatePeerKey(join(net.sequencerDir, 'forger.peer.key')),
    listen: ['/ip4/127.0.0.1/tcp/0'],
    topics: TOPICS,
  });
  await node.start();
  let proof: ForkProof | undefined;
  let seq = 0;
  try {
    // The log may still grow (a device_lost entry, say): a witness that moved past the forged seq
    // answers `conflict`, and the round is forged again at the seq the witnesses hold then.
    for (let attempt = 1; attempt <= MAX_ROUNDS && !proof; attempt++) {
      seq = await agreedSeq(ctx, net);
      const forged = buildCheckpoint({ log, seq, ...forgedTree(seq) }, signer, formatTime(Date.now()));
      ctx.say(
        `[${ctx.elapsed()}] fork: the sequencer key ${signer.kid} signs a second checkpoint at seq ${seq} (head ${forged.head.slice(0, 19)}…) and sends it to ${asked.map((w) => w.name).join(', ')}`,
      );
      const req: AddCheckpointRequest = { type: 'add-checkpoint', oldSeq: seq, consistency: [], headProof: [], checkpoint: forged };
      let round: ForkProof | undefined;
      for (const w of asked) {
        const reply = await ask(node, w, req, ctx);
        if (reply === 'moved') {
          ctx.say(`[${ctx.elapsed()}]   ${w.name} has moved past seq ${seq} meanwhile; forging again`);
          round = undefined;
          break;
        }
        round ??= reply;
        ctx.say(`[${ctx.elapsed()}]   ${w.name} refused it: fork_detected, with a ForkProof (its cosigned checkpoint vs this one)`);
      }
      proof = round;
    }
  } finally {
    await node.stop();
  }
  if (!proof) throw new DemoError(`no round of ${MAX_ROUNDS} got a ForkProof from every witness asked`);

  await waitFor(
    `every witness to know the fork at seq ${seq} (GET /v1/forks)`,
    async () => {
      const known = await Promise.all(net.witnesses.map(async (w) => (await forksOf(w, log, ctx.signal)).some((f) => f.a.seq === seq)));
      return known.every(Boolean) ? true : undefined;
    },
    {
      timeoutMs: 20_000,
      intervalMs: 200,
      signal: ctx.signal,
      logPath: bystander ? join(ctx.sup.logsDir, `${bystander.name}.log`) : undefined,
    },
  );
  if (bystander)
    ctx.say(
      `[${ctx.elapsed()}]   ${bystander.name}, never asked, learned the ForkProof by gossip; all ${net.witnesses.length} witnesses list it at GET /v1/forks`,
    );

  const proofPath = join(ctx.dir, 'fork-proof.json');
  await writeJsonFile(proofPath, proof);
  const policy = join(ctx.dir, 'policy.json');
  ctx.say(`[${ctx.elapsed()}] verify the fork offline: cookwala verify-fork ${proofPath} --policy ${policy}`);
  const r = await ctx.sup.run({ name: 'verify-fork', args: ['verify-fork', proofPath, `--policy=${policy}`] }, 60_000);
  ctx.say(indent(r.output));
  const proven = r.code === 0;
  ctx.say(`[${ctx.elapsed()}] fork: ${proven ? 'PROVEN' : `NOT PROVEN (cookwala verify-fork exit code ${r.code})`}`);
  return { proven, proofPath, seq };
}
