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
