// No package that package-lock.json installs declares an `engines.node` range leaving out the
// oldest Node this project's package.json admits (Node 20: the toolchain's line). npm only warns
// (EBADENGINE) when a dependency asks for a newer Node, and the code often still loads, so a pin
// that needs Node 22 would go unnoticed until it used an API Node 20 lacks; this test names such a
// package and its range (its lock path shows who pulls it in). A transitive one is mended with an
// exact pin in package.json's `overrides` to a version inside its parent's range that still runs
// on Node 20, and the README's paragraph that names those pins is checked against package.json.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface LockEntry {
  readonly version?: string;
  readonly engines?: unknown;
}

function readJson<T>(name: string): T {
  return JSON.parse(readFileSync(`${ROOT}${name}`, 'utf8')) as T;
}

/** The lowest Node.js version a range admits, or undefined when the range is not a semver range. */
function oldestNode(range: string): string | undefined {
  if (semver.validRange(range) === null) return undefined;
  return semver.minVersion(range)?.version;
}

/** Lock entries whose engines.node range does not admit `node`: [path, range] pairs. */
function refusing(packages: Readonly<Record<string, LockEntry>>, node: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [where, entry] of Object.entries(packages)) {
    if (where === '') continue; // the project itself
    const engines = entry.engines;
    if (engines === null || typeof engines !== 'object' || Array.isArray(engines)) continue;
    const range = (engines as Record<string, unknown>).node;
    if (typeof range !== 'string') continue;
    if (!semver.satisfies(node, range, { includePrerelease: true })) out.push([where, range]);
  }
  return out;
}

/** The `name` version pairs of the README's paragraph on engines (from its first sentence to the blank line). */
function readmePins(readme: string): Array<[string, string]> {
  const at = readme.indexOf('No package `npm install` puts in');
  if (at < 0) return [];
  const end = readme.indexOf('\n\n', at);
  const para = readme.slice(at, end < 0 ? undefined : end).replace(/\n/g, ' ');
  return [...para.matchAll(/`([a-z@][a-z0-9@/._-]*)` (\d+\.\d+\.\d+)/g)].map((m) => [m[1], m[2]]);
}

describe('engines', () => {
  const pkg = readJson<{ engines: { node: string }; dependencies: Record<string, string>; overrides?: Record<string, string> }>(
    'package.json',
  );
  const lock = readJson<{ packages: Record<string, LockEntry> }>('package-lock.json');
  const oldest = oldestNode(pkg.engines.node);

  it('package.json admits Node 20', () => {
    expect(oldest).toBeDefined();
    expect(semver.major(oldest ?? '0.0.0')).toBe(20);
  });

  it('every installed package runs on the oldest Node the project admits', () => {
    expect(refusing(lock.packages, oldest ?? '0.0.0')).toEqual([]);
  });

  it('the README names the pins that keep them so, as package.json has them', () => {
    const pins = readmePins(readFileSync(`${ROOT}README.md`, 'utf8'));
    expect(pins.length).toBeGreaterThan(0);
    for (const [name, version] of pins) expect(pkg.overrides?.[name] ?? pkg.dependencies[name], name).toBe(version);
    expect(readmePins('No package `npm install` puts in: `a` 1.2.3 and `b/c` 0.1.0.\n\n`d` 9.9.9')).toEqual([
      ['a', '1.2.3'],
      ['b/c', '0.1.0'],
    ]);
  });

  it('names a package that asks for a newer Node (the check can fail)', () => {
    const packages: Record<string, LockEntry> = {
      'node_modules/old-enough': { version: '1.0.0', engines: { node: '>=18' } },
      'node_modules/a/node_modules/too-new': { version: '2.0.0', engines: { node: '>=22' } },
      'node_modules/either': { version: '1.0.0', engines: { node: '^20.19.0 || >=22.12.0' } },
      'node_modules/no-engines': { version: '1.0.0' },
      'node_modules/odd-engines': { version: '1.0.0', engines: ['node >= 0.4'] },
    };
    expect(refusing(packages, '20.19.0')).toEqual([['node_modules/a/node_modules/too-new', '>=22']]);
    expect(refusing(packages, '18.0.0').map(([where]) => where)).toEqual(['node_modules/a/node_modules/too-new', 'node_modules/either']);
  });

  it('reads the oldest version a range admits', () => {
    expect(oldestNode('>=20.19')).toBe('20.19.0');
    expect(oldestNode('^20.19.0 || >=22.12.0')).toBe('20.19.0');
    expect(oldestNode('not a range')).toBeUndefined();
  });
});
