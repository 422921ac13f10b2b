// witness/server/discovery.test.ts: /witness.v0.json has Sunlight's shape (name, prefixes ending in
// '/', verifier_keys, software) and /about shows the keys, the submission URL and the lists,
// escaped, without a script; a local list file is counted, never named.

import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { registerDiscoveryRoutes, renderAboutPage, witnessV0, type DiscoveryDeps } from './discovery.ts';

const deps = (over: Partial<DiscoveryDeps> = {}): DiscoveryDeps => ({
  name: 'witness.example/w1',
  vkeys: ['witness.example/w1+01020304+BAAA', 'witness.example/w1+05060708+BgAA'],
  baseUrl: () => 'https://witness.example/w1/',
  logCount: () => 3,
  lists: () => ['https://lists.example/log-list.1', '/etc/cookwala/private-list'],
  listRefreshMs: 3_600_000,
  software: { name: 'cookwala-log', version: '0.1.0' },
  ...over,
});

describe('witness discovery', () => {
  it('serves witness.v0.json in the shape Sunlight serves', async () => {
    const app = Fastify();
    registerDiscoveryRoutes(app, deps());
    const r = await app.inject({ method: 'GET', url: '/witness.v0.json' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(r.json()).toEqual({
      name: 'witness.example/w1',
      submission_url: 'https://witness.example/w1/',
      monitoring_url: 'https://witness.example/w1/',
      verifier_keys: ['witness.example/w1+01020304+BAAA', 'witness.example/w1+05060708+BgAA'],
      software: { name: 'cookwala-log', version: '0.1.0' },
    });
    await app.close();
  });

  it('renders an about page with the keys, the URL and the lists, and no script', async () => {
    const app = Fastify();
    registerDiscoveryRoutes(app, deps());
    const r = await app.inject({ method: 'GET', url: '/about' });
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(r.body).toContain('witness.example/w1+05060708+BgAA');
    expect(r.body).toContain('POST https://witness.example/w1/add-checkpoint');
    expect(r.body).toContain('It admits 3 logs');
    expect(r.body).toContain('every hour');
    expect(r.body).toContain('href="https://lists.example/log-list.1"');
    expect(r.body).toContain('1 local list file');
    expect(r.body).not.toContain('/etc/cookwala');
    expect(r.body).not.toMatch(/<script/i);
    await app.close();
  });

  it('escapes what it shows', () => {
    const html = renderAboutPage(deps({ name: '<b>"x"</b>', lists: () => ['https://l.example/?a=<i>'] }));
    expect(html).toContain('&lt;b&gt;&quot;x&quot;&lt;/b&gt;');
    expect(html).not.toContain('<b>"x"</b>');
    expect(html).not.toContain('<i>');
    expect(witnessV0(deps({ baseUrl: () => undefined })).submission_url).toBe('/');
  });
});
