// ESLint (typescript-eslint's recommended rules) over the TypeScript of every part; Prettier formats,
// so no stylistic rule is checked here (eslint-config-prettier turns them off).
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "clients/typescript/dist/**", "clients/typescript/src/generated/**", "console/public/**", "test-artifacts/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    rules: {
      // `_name` says a parameter or binding is unused on purpose.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  {
    // Tests and benchmarks read JSON answers whose shape the test itself asserts; chai asserts by property access.
    files: ["test/**", "bench/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off", "@typescript-eslint/no-unused-expressions": "off" },
  },
  {
    // Run by mongosh in the compose stack's MongoDB container.
    files: ["mongo-init/**"],
    languageOptions: { globals: { db: "readonly", process: "readonly" } },
  },
  {
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: { module: "writable", require: "readonly", __dirname: "readonly", process: "readonly" } },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    files: ["**/*.mjs", "scripts/**/*.js"],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly", setTimeout: "readonly", Buffer: "readonly" } },
  },
);
