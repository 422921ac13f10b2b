import { parseAllDocuments } from 'yaml';
const t = '---\nA:\nB: x\nC: 1.0\nD: ~\nE: null\n---\n# only a comment\n---\nA: 1\nA: 2\n';
for (const d of parseAllDocuments(t, { schema: 'failsafe', uniqueKeys: true })) { console.log(d.errors.map(e=>e.code+' '+e.message), JSON.stringify(d.toJS()), d.contents === null); }
