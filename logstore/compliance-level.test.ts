// The shared logstore compliance suite (testkit/logstore-compliance.ts) on the LevelDB driver:
// real LevelDB in temp directories; raw bytes searched in every file of the store's directory.
import { Level } from 'level';
import { runLogStoreCompliance } from '../testkit/logstore-compliance.ts';
import { useStores } from '../testkit/logstore-stores.ts';
import { dirContains } from '../testkit/logstore.ts';

const stores = useStores();

runLogStoreCompliance('LevelDB', {
  fresh: (mode = 'full') => stores.fresh({ mode }),
  reopen: (s) => stores.reopen(s),
  async tamper(s, puts) {
    await stores.close(s);
    const db = new Level<Buffer, Buffer>(s.dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    for (const p of puts) await db.put(p.key, p.value);
    await db.close();
  },
  open: (s) => stores.open(s.dir, { createIfMissing: false }),
  bytesPresent: async (s, needle) => dirContains(s.dir, needle),
});
