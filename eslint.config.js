// eslint.config.js: the linter (ESLint flat config with typescript-eslint, typed linting through the
// project service, so each file is checked under the tsconfig.json nearest to it: web/src under
// web/tsconfig.json, everything else under the root one). Rules are chosen for bugs, not taste
// (formatting is Prettier's, .prettierrc.json): a promise nobody awaits or handles, a promise where
// a value is expected, == instead of ===, own-member checks through Object.prototype, unused code,
// unreachable or fall-through branches. Run: `npm run lint`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'web/dist/', 'dist/', 'coverage/', 'data/', 'conformance/vectors/', '**/*.d.ts', '.*/', '.*.ts', '.*.mts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // TypeScript checks names and types (tsc --noEmit); these would only duplicate it.
      'no-undef': 'off',
      'no-redeclare': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // Bugs.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true, allowTernary: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          args: 'after-used',
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrors: 'none',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-prototype-builtins': 'error',
      'no-self-compare': 'error',
      'no-constant-condition': ['error', { checkLoops: false }],
      'no-empty': ['error', { allowEmptyCatch: true }],
      'no-var': 'error',
      'prefer-const': ['error', { destructuring: 'all' }],
      'no-throw-literal': 'off',
      'no-unused-private-class-members': 'error',
      'no-template-curly-in-string': 'error',
      // Protocol text checks match control characters on purpose.
      'no-control-regex': 'off',
    },
  },
  {
    // Files outside both tsconfigs (plain JavaScript, the tool configs): no type information.
    files: ['**/*.js', 'vitest.config.ts', 'vitest.unit.config.ts'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
