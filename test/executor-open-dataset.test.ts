// Open datasets (Core 0.2 §8 "Open datasets coarsen times to the day") end to end: a real sequencer
// hosts a log created with `timePrecision: "day"` (its descriptor says so and declares its time
// bounds rounded up to whole days); a real executor process with `--consent open` runs a mission
// and delivers to it through a recording proxy. Nothing the device sends carries a time finer than
// the day (every time string in every request body, and the signedAt inside every cookwalasig, is a
// UTC midnight); nothing in the log does either (every entry's sequencedAt and signedAt, every
// payload's time and cookwalasig); and the log still verifies from scratch (hashes, links, device
// signatures, each signedAt within the declared bounds of its sequencedAt, and the exported bundle
// with `cookwala verify`, which also checks the day precision). An event with a
// millisecond time is refused by that log with time_too_precise and changes nothing.
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { cookwala } from '../testkit/audit.ts';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeCookwalasig, type CloudEvent } from '../verifier/cloudevent/read.ts';
import type { LogDescriptor } from '../verifier/documents/log-descriptor.ts';
import { checkSignedAt, DAY_MS } from '../verifier/documents/time-bounds.ts';
import { buildStatusEvent } from '../executor/events.ts';
import { checkChain, fetchLog, spawnExecutor, statusLine, testDevice, type ExecutorProcess } from '../testkit/executor.ts';
import { logPath, startSequencer, type TestSequencer } from '../testkit/sequencer.ts';
import { tempDirs } from '../testkit/tmp.ts';
import { changes, waitFor } from '../testkit/wait.ts';

const dirs = tempDirs('cookwala-exec-open-');
const OPEN_LOG = 'kitchen.test/open/day';
let seq: TestSequencer | undefined;
let child: ExecutorProcess | undefined;
let proxy: Server | undefined;
afterAll(async () => {
  await child?.close();
  await new Promise<void>((r) => (proxy ? proxy.close(() => r()) : r()));
  await seq?.close();
  await dirs.cleanup();
});

const isMidnight = (t: string) => Number.isFinite(Date.parse(t)) && Date.parse(t) % DAY_MS === 0;
const TIME_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

/** Every time in a JSON value: RFC 3339 strings, and the signedAt inside each cookwalasig. */
function timesIn(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') {
    if (TIME_RE.test(v)) out.push(v);
  } else if (Array.isArray(v)) for (const x of v) timesIn(x, out);
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (k === 'cookwalasig' && typeof x === 'string') {
        const s = decodeCookwalasig(x);
        out.push(s.ok ? s.value.signedAt : `undecodable cookwalasig`);
      } else timesIn(x, out);
    }
  }
  return out;
}

/** Forward everything to `target`, keep each request body, and call `seen` after each answer. */
function recordingProxy(target: string, bodies: Array<{ path: string; body: string; status: number }>, seen: () => void): Promise<string> {
  proxy = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) headers[k] = v;
    const r = await fetch(target + req.url, {
      method: req.method,
      headers,
      body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body,
    });
    const answer = Buffer.from(await r.arrayBuffer());
    bodies.push({ path: req.url ?? '', body, status: r.status });
    res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/octet-stream' });
    res.end(answer);
    seen();
  });
  return new Promise((resolve) =>
    proxy!.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(proxy!.address() as { port: number }).port}`)),
  );
}

describe('an open dataset: times to the day, from the device to the log', () => {
  it('nothing finer than the day leaves an open-consent device or appears in a timePrecision:day log, and the log verifies', async () => {
    seq = await startSequencer({ listen: true, dir: await dirs.make(), mode: 'full' });
    const made = await fetch(`${seq.url}/v1/logs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${seq.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ log: OPEN_LOG, mode: 'full', timePrecision: 'day' }),
    });
    expect(made.status).toBe(201);
    const descriptor = ((await made.json()) as { descriptor: LogDescriptor }).descriptor;
    expect(descriptor).toMatchObject({ timePrecision: 'day', timeBounds: { maxClockSkewMs: DAY_MS, maxDeliveryDelayMs: 3 * DAY_MS } });

    // A millisecond time is refused by this log (time_too_precise) and the log does not move.
    const dev = testDevice('ms-device');
    expect([201, 200]).toContain((await seq.registerKey(dev.keyRecord, OPEN_LOG)).statusCode);
    const exact = buildStatusEvent(
      { source: dev.source, signer: dev.signer, dataset: 'research_only' },
      { executionId: 'exact', recipeId: 'tea', status: 'accepted', seq: 1, at: Date.now() },
    );
    const before = seq.headSeq(OPEN_LOG);
    const refused = await seq.post(exact, { log: OPEN_LOG });
    expect([refused.statusCode, refused.json().code]).toEqual([422, 'time_too_precise']);
    expect(seq.headSeq(OPEN_LOG)).toBe(before);

    // The device, through a proxy that keeps everything it sends.
    const sent: Array<{ path: string; body: string; status: number }> = [];
    const answered = changes();
    const via = await recordingProxy(seq.url!, sent, () => answered.notify());
    child = await spawnExecutor(await dirs.make(), [
      '--sequencer',
      via,
      '--log',
      OPEN_LOG,
      '--consent',
      'open',
      `--register-token=${seq.token}`,
      '--speed',
      '100',
    ]);
    const r = await fetch(`${child.url}/v1/executions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'open-1' },
      body: JSON.stringify({ recipe: { id: 'tea', steps: [{ op: 'cw.op.boil', params: { tempC: 98, durationS: 30 } }] } }),
    });
    expect(r.status).toBe(201);
    const id = ((await r.json()) as { id: string }).id;
    await child.until(statusLine(id, 'completed'), 'the mission completed');
    // Delivered when the proxy has forwarded the completed event with a success (each answer wakes this).
    const delivered = () => sent.some((s) => s.path.endsWith('/events') && s.status < 300 && s.body.includes(`"${id}.4"`));
    await waitFor(delivered, {
      what: 'the completed event delivered',
      wake: answered,
      detail: () => `sent: ${sent.map((s) => `${s.path} ${s.status}`).join(', ')}`,
    });

    // 1. What left the device: no time finer than the day.
    const eventBodies = sent.filter((s) => s.path.endsWith('/events'));
    expect(eventBodies.length).toBeGreaterThan(0);
    const leftTimes = sent.flatMap((s) => (s.body ? timesIn(JSON.parse(s.body)) : []));
    expect(leftTimes.length).toBeGreaterThanOrEqual(8); // time and signedAt of each of the 4 events, and the key's validFrom
    expect(leftTimes.filter((t) => !isMidnight(t))).toEqual([]);

    // 2. What the log holds: entries and payloads, all at the day.
    const { descriptorHash, entries } = await fetchLog(seq.url!, OPEN_LOG);
    const mine = entries.filter((e) => e.ce.subject === id);
    expect(mine.map((e) => e.ce.cookwalaseq)).toEqual([1, 2, 3, 4]);
    expect(entries.flatMap((e) => [e.sequencedAt, e.eventSignature.signedAt]).filter((t) => !isMidnight(t))).toEqual([]);
    for (const e of mine) {
      const p = (await (await fetch(`${seq.url}${logPath(OPEN_LOG, `/events/${e.seq}`)}`)).json()) as CloudEvent;
      expect(timesIn(p).filter((t) => !isMidnight(t))).toEqual([]);
      expect(timesIn(p).length).toBeGreaterThanOrEqual(2); // time and the cookwalasig signedAt
    }

    // 3. ...and it verifies: hashes, links, device signatures, and the declared (day) time bounds.
    const keys = ((await (await fetch(`${child.url}/v1/capabilities`)).json()) as { keys: Parameters<typeof checkChain>[2] }).keys;
    expect(checkChain(descriptorHash, entries, [...keys, dev.keyRecord])).toBeUndefined();
    for (const e of entries)
      expect(checkSignedAt(Date.parse(e.eventSignature.signedAt), Date.parse(e.sequencedAt), descriptor.timeBounds!).ok).toBe(true);
    // The auditor's view: the exported bundle verifies offline with `cookwala verify`.
    await seq.seq.tick();
    const data = await dirs.make();
    const policy = JSON.parse(await readFile(join(seq.dir, 'policy.json'), 'utf8')) as Record<string, unknown>;
    // The auditor's policy for this log caps its time bounds at what it declares (whole days).
    await writeFile(
      join(data, 'policy.json'),
      JSON.stringify({ ...policy, log: OPEN_LOG, timeBounds: { required: true, ...descriptor.timeBounds } }),
    );
    const bundle = await fetch(`${seq.url}${logPath(OPEN_LOG, '/bundle')}`);
    expect(bundle.status).toBe(200);
    await writeFile(join(data, 'bundle.ndjson'), await bundle.text());
    const v = await cookwala(['verify', join(data, 'bundle.ndjson'), '--policy', join(data, 'policy.json')]);
    expect(v.code, v.stdout + v.stderr).toBe(0);
    expect(v.stdout).toMatch(/^VALID: /m);
  });
});
