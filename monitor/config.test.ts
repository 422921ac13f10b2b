// The monitor's config rule for where a Cookwala log is read (config.ts): from its sequencer
// (`url`, tiles defaulting to the sequencer's tlog prefix), or, with `tiles` and no `url`, whole
// from a static copy; with neither the config is refused, naming both.

import { afterAll, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDirs } from '../testkit/tmp.ts';
import { keyFor, LOG, signerFor } from '../testkit/verifier-fixtures.ts';
import { ConfigError, readMonitorConfig } from './config.ts';

const dirs = tempDirs('cookwala-mon-cfg-');
afterAll(() => dirs.cleanup());

async function configWith(log: Record<string, unknown>): Promise<string> {
  const dir = await dirs.make();
  const policy = {
    kind: 'WitnessPolicy',
    log: LOG,
    sequencer: keyFor(signerFor('EdDSA', 'seq-1', 7), 'sequencer', 'cookwala:sequencer'),
    witnesses: [],
    quorum: 0,
  };
  await writeFile(join(dir, 'policy.json'), JSON.stringify(policy));
  await writeFile(
    join(dir, 'monitor.json'),
    JSON.stringify({ kind: 'MonitorConfig', logs: [{ origin: LOG, policy: 'policy.json', ...log }] }),
  );
  return join(dir, 'monitor.json');
}

describe('the monitor config: where a Cookwala log is read', () => {
  it('reads from the sequencer with url, its tiles defaulting to the tlog prefix there', async () => {
    const c = await readMonitorConfig(await configWith({ kind: 'cookwala', url: 'http://seq.test:8080/' }));
    expect(c.logs[0].url).toBe('http://seq.test:8080');
    expect(c.logs[0].tiles).toBe(`http://seq.test:8080/tlog/${encodeURIComponent(LOG)}/`);
  });

  it('reads whole from a static copy with tiles and no url', async () => {
    const c = await readMonitorConfig(await configWith({ kind: 'cookwala', tiles: 'http://mirror.test/copy' }));
    expect(c.logs[0].url).toBeUndefined();
    expect(c.logs[0].tiles).toBe('http://mirror.test/copy/');
  });

  it('refuses a cookwala log with neither, and a url that is not http(s)', async () => {
    await expect(readMonitorConfig(await configWith({ kind: 'cookwala' }))).rejects.toThrow(ConfigError);
    await expect(readMonitorConfig(await configWith({}))).rejects.toThrow(/needs url .* or tiles/);
    await expect(readMonitorConfig(await configWith({ url: 'ftp://x' }))).rejects.toThrow(/url/);
  });
});
