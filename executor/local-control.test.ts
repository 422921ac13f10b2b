// The local stop control's socket (local-control.ts): `stop` stops everything, `stop <id>` one
// execution, each answered with one JSON line; anything else, or a line over 256 bytes, gets an
// error line and stops nothing; the socket file is mode 0600 and is removed at close.
import { stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDirs } from '../testkit/tmp.ts';
import { startLocalControl } from './local-control.ts';

const dirs = tempDirs('cookwala-exec-control-');
afterAll(() => dirs.cleanup());

function send(path: string, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(path);
    let out = '';
    s.setEncoding('utf8');
    s.on('data', (d: string) => (out += d));
    s.on('end', () => resolve(out.trim()));
    s.on('error', reject);
    s.write(text);
  });
}

describe('local control socket', () => {
  it('stop, stop <id>, and refusals that stop nothing', async () => {
    const calls: string[] = [];
    const path = join(await dirs.make(), 'control.sock');
    const c = await startLocalControl(path, {
      stopAll: async () => (calls.push('all'), [{ id: 'a', status: 'stopping' }]),
      stopOne: async (id) => (calls.push(id), id === 'b' ? { id, status: 'stopped' } : undefined),
    });
    try {
      expect(((await stat(path)).mode & 0o777).toString(8)).toBe('600');
      expect(JSON.parse(await send(path, 'stop\n'))).toEqual({ stopped: [{ id: 'a', status: 'stopping' }] });
      expect(JSON.parse(await send(path, 'stop b\n'))).toEqual({ stopped: [{ id: 'b', status: 'stopped' }] });
      expect(JSON.parse(await send(path, 'stop nope\n'))).toEqual({ stopped: [] });
      for (const bad of ['halt\n', 'stop a b\n', 'stop ' + 'x'.repeat(300) + '\n', 'y'.repeat(300)])
        expect(JSON.parse(await send(path, bad))).toHaveProperty('error');
      expect(calls).toEqual(['all', 'b', 'nope']);
    } finally {
      await c.close();
    }
    await expect(stat(path)).rejects.toThrow();
  });
});
