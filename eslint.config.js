import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'coverage/', '.kruntimes/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // Functions short enough to read at once (docs/architecture.md): product code, not its tests.
    files: ['src/**/*.ts', 'webhook/**/*.ts', 'controller/**/*.ts', 'runtimed/**/*.ts', 'cli/**/*.ts'],
    ignores: ['**/*.test.ts', '**/*.testing.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }] },
  },
  {
    // One-way dependencies (docs/architecture.md): the pure core never imports a deployable or src/kube.
    files: ['src/**/*.ts'],
    ignores: ['src/kube/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: ['../kube/*', './kube/*', '**/webhook/*', '**/controller/*', '**/runtimed/*', '**/cli/*'],
        },
      ],
    },
  },
);
