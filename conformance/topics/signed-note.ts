// conformance/topics/signed-note.ts: C2SP signed-note, tlog-checkpoint and tlog-cosignature vectors
// (keys.json, notes.json, checkpoints.json; any subset present) through verifier/c2sp/note/index.ts. Each
// file is scored by the sections it holds (checkSignedNoteFile: vkeys and skeys, invalid vkeys,
// notes with verdicts valid / invalid / malformed, checkpoint bodies, signed checkpoints,
// parse-only examples); a case passes only when the verdict and every stated detail match.

import path from 'node:path';
import { checkSignedNoteFile } from '../checks/signed-note.ts';
import { classify, isDocumentation, listFiles, readJson } from '../files.ts';
import type { TopicRunner } from '../topic.ts';

const PATTERNS = { files: /^(?:keys|notes|checkpoints)[^/]*\.json$/ };

export const signedNoteTopic: TopicRunner = {
  async run(dir, t) {
    const { byPattern, unclaimed } = classify(await listFiles(dir), PATTERNS);
    for (const f of unclaimed) if (!isDocumentation(f)) t.ignore(f);
    for (const f of byPattern.files) {
      try {
        const checks = checkSignedNoteFile(await readJson(path.join(dir, f)));
        if (checks.length === 0)
          t.fileError(f, 'no signed-note sections (keys, invalidVkeys, cases, bodies, signedCheckpoints, parseOnlyExamples)');
        for (const c of checks) {
          if (c.skip !== undefined) t.skip(f, c.id, c.skip);
          else if (c.pass) t.pass(f, c.id);
          else t.fail(f, c.id, c.expected, c.got);
        }
      } catch (e) {
        t.fileError(f, (e as Error).message);
      }
    }
  },
};
