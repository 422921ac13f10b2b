import { readCloudEvent } from '/work/main/verifier/cloudevent/read.ts';
const base = { specversion: '1.0', id: 'e1', source: 'urn:x', type: 't' };
for (const extra of [{ acmefoo: 'x' }, { 'x-acme-foo': 'x' }, { Acme: 'x' }, { acmefoo: 5 }, { acmefoo: true }, { acmefoo: { a: 1 } }, { acmefoo: null }, { a234567890123456789012: 'x' }]) {
  const r = readCloudEvent({ ...base, ...extra });
  console.log(JSON.stringify(extra), r.ok ? 'ok' : `${r.code}: ${r.detail}`);
}
