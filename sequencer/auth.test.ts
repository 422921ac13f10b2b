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

it('accepts each token of a several-line operator.token (a rotation in progress), and only those', () => {
  const oldToken = 'o'.repeat(43);
  const newToken = 'n'.repeat(43);
  const a = createOperatorAuth(`${oldToken}\n${newToken}\n`);
  expect(a.check(`Bearer ${oldToken}`)).toBe(true);
  expect(a.check(`Bearer ${newToken}`)).toBe(true);
  expect(a.check(`Bearer ${oldToken}\n${newToken}`)).toBe(false);
  expect(a.check(`Bearer ${'x'.repeat(43)}`)).toBe(false);
  expect(() => createOperatorAuth(`${newToken}\nshort\n`)).toThrow(TypeError);
  expect(createOperatorAuth(`\n${newToken}\r\n\n`).check(`Bearer ${newToken}`)).toBe(true);
});
