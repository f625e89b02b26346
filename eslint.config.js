// ESLint 9 flat config: @eslint/js and typescript-eslint recommended rules for the whole repo.
// (Type-only imports are enforced by the compiler: tsconfig has verbatimModuleSyntax.)
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

const nodeGlobals = Object.fromEntries(
  ['process', 'console', 'Buffer', 'URL', 'setTimeout', 'clearTimeout', 'fetch'].map((name) => [name, 'readonly']),
);

export default defineConfig(
  { ignores: ['dist/', 'node_modules/', 'models/', 'data/', 'coverage/', 'bench/results/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: nodeGlobals },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
    },
  },
);
