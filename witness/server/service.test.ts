// witness/server/service.ts's defaultWorkers: the worker threads the witness CLI starts on a
// machine of N cores (docs/design.md §13): none on one core, one verify worker per core up to 4, and the
// signing worker whenever there is a second core.
import { describe, expect, it } from 'vitest';
import { availableParallelism } from 'node:os';
import { defaultWorkers } from './service.ts';

describe('defaultWorkers', () => {
  it('uses no worker on one core, a verify worker per core (at most 4) and the signing worker otherwise', () => {
    expect(defaultWorkers(1)).toEqual({ verifyWorkers: 0, signWorker: false });
    expect(defaultWorkers(2)).toEqual({ verifyWorkers: 2, signWorker: true });
    expect(defaultWorkers(3)).toEqual({ verifyWorkers: 3, signWorker: true });
    expect(defaultWorkers(64)).toEqual({ verifyWorkers: 4, signWorker: true });
  });

  it('defaults to this machine’s cores', () => {
    expect(defaultWorkers()).toEqual(defaultWorkers(availableParallelism()));
  });
});
