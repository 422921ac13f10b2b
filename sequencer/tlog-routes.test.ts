// tlog-tiles paths (tlog-routes.ts; C2SP tlog-tiles at commit 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9):
// the index spelling of the spec (1234067 -> x001/x234/067) round-trips for every index and width,
// one spelling per tile (a non-canonical index, a width of 0 or 256, a level over 63 are refused),
// and no string makes the parser throw. Accept negotiation for the checkpoint note.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatTileIndex, parseTilePath, wantsNote } from './tlog-routes.ts';
import type { FastifyRequest } from 'fastify';

describe('tlog-tiles paths', () => {
  it('spells indexes as the spec does', () => {
    expect(formatTileIndex(1234067)).toBe('x001/x234/067');
    expect(formatTileIndex(0)).toBe('000');
    expect(formatTileIndex(1000)).toBe('x001/000');
    expect(parseTilePath('1/x001/x234/067')).toEqual({ level: 1, index: 1234067, width: 256 });
    expect(parseTilePath('entries/000.p/17')).toEqual({ level: 'entries', index: 0, width: 17 });
    expect(parseTilePath('0/x001/000.p/255')).toEqual({ level: 0, index: 1000, width: 255 });
  });

  it('refuses every other spelling', () => {
    for (const bad of [
      '0/x000/005',
      '0/5',
      '0/0005',
      '00/000',
      '64/000',
      '0/000.p/0',
      '0/000.p/256',
      '0/000.p/017',
      'entries/x1/000',
      '0/000/',
      '',
      'tile/0/000',
      '0/000.p',
      '0/x001',
      '-1/000',
      '0/000.p/1/2',
    ]) {
      expect(parseTilePath(bad), bad).toBeUndefined();
    }
  });

  it('round-trips every index and width, and never throws on any string', () => {
    fc.assert(
      fc.property(fc.nat({ max: 2 ** 40 }), fc.integer({ min: 0, max: 63 }), fc.integer({ min: 1, max: 256 }), (n, level, width) => {
        const p = `${level}/${formatTileIndex(n)}${width < 256 ? `.p/${width}` : ''}`;
        expect(parseTilePath(p)).toEqual({ level, index: n, width });
      }),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (s) => {
        const t = parseTilePath(s);
        if (t) expect(`${t.level}/${formatTileIndex(t.index)}${t.width < 256 ? `.p/${t.width}` : ''}`).toBe(s);
      }),
    );
  });

  it('serves the note when text/plain comes before JSON in Accept', () => {
    const req = (accept?: string) => ({ headers: accept === undefined ? {} : { accept } }) as unknown as FastifyRequest;
    expect(wantsNote(req('text/plain'))).toBe(true);
    expect(wantsNote(req('text/plain, application/json;q=0.5'))).toBe(true);
    expect(wantsNote(req('application/json, text/plain'))).toBe(false);
    expect(wantsNote(req('*/*'))).toBe(false);
    expect(wantsNote(req())).toBe(false);
  });
});
