// Operator bearer token: only the exact token passes, whatever its length or prefix.
import { expect, it } from 'vitest';
import { createOperatorAuth } from './auth.ts';

it('accepts exactly the bearer token', () => {
  const token = 'A'.repeat(43);
  const a = createOperatorAuth(token);
  expect(a.check(`Bearer ${token}`)).toBe(true);
  expect(a.check(`bearer ${token}`)).toBe(true);
  for (const h of [
    undefined,
    '',
    token,
    `Bearer ${token}x`,
    `Bearer ${token.slice(1)}`,
    `Basic ${token}`,
    'Bearer ',
    `Bearer ${token} extra`,
  ])
    expect(a.check(h), String(h)).toBe(false);
  expect(() => createOperatorAuth('short')).toThrow(TypeError);
});
