// bench/json-child.ts: one measurement in a child process of its own, so that its peak memory and
// CPU time are its own (the verify, browser and id-set sections): `node --import tsx SCRIPT ARGS`
// with stderr passed through, resolved with the JSON of the last line the child printed on stdout.
// With `cpus`, the child runs on those cores only (`taskset -c`). Leaves out: timeouts (each child
// bounds its own work). A child that prints no JSON line rejects with its exit code and the start
// of what it printed.

import { spawn } from 'node:child_process';

/**
 * `nodeArgs` go to node before the script (for example --cpu-prof); `node` is another Node binary
 * (the mldsa section's Node 24); `cpus` a taskset core list (the monitor section's served-apart pairs).
 */
export function runJsonChild<T>(
  script: string,
  args: readonly string[],
  what: string,
  nodeArgs: readonly string[] = [],
  node: string = process.execPath,
  cpus?: string,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const argv = [...nodeArgs, '--import', 'tsx', script, ...args];
    const stdio: ['ignore', 'pipe', 'inherit'] = ['ignore', 'pipe', 'inherit'];
    const child = cpus === undefined ? spawn(node, argv, { stdio }) : spawn('taskset', ['-c', cpus, node, ...argv], { stdio });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        resolve(JSON.parse(out.trim().split('\n').pop() as string) as T);
      } catch {
        reject(new Error(`${what} child exited ${code}: ${out.slice(0, 300)}`));
      }
    });
  });
}
