/**
 * Bundles the compiled CLI (dist/src/cli/main.js and everything it imports) into
 * dist/bundle/main.js, which bin/tracegate.js loads; what the CLI imports only when needed goes into
 * chunks of its own beside it: each command's action (src/cli/lazyAction.ts), so a start loads only
 * commander and the command definitions (tests/unit/startupCode.test.ts), and within a run the
 * external-agent adapters, the MCP toolset and the rubric judge. Node 20's ESM
 * loader pays for every module it resolves, reads and links: about 300 modules cost the CLI a
 * quarter of a second at every start before it did any work; one file halves that
 * (docs/performance.md).
 * Left out, loaded from node_modules as before: the packages loaded only when used (the MCP SDK,
 * protobufjs, fflate) and web-tree-sitter with its grammar, which find their .wasm files beside
 * their own modules.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

/**
 * zod re-exports every translation of its messages (`z.locales`, 40-odd languages, a third of the
 * bundle's size and of its parse time at every start). tracegate uses only the English one, which
 * zod configures from locales/en.js itself, so the namespace is cut down to that.
 */
const englishZodMessagesOnly = {
  name: 'english-zod-messages-only',
  setup(bundle) {
    bundle.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, ({ importer }) =>
      importer.includes(`${path.sep}node_modules${path.sep}zod${path.sep}`) ? { path: path.join(path.dirname(importer), '../locales/index.js'), namespace: 'zod-locales' } : undefined,
    );
    bundle.onLoad({ filter: /.*/, namespace: 'zod-locales' }, ({ path: index }) => ({
      contents: `export { default as en } from ${JSON.stringify(path.join(path.dirname(index), 'en.js'))};`,
      resolveDir: path.dirname(index),
    }));
  },
};

// Chunk names carry content hashes: clear the old ones.
rmSync('dist/bundle', { recursive: true, force: true });

await build({
  entryPoints: ['dist/src/cli/main.js'],
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['@modelcontextprotocol/sdk', 'protobufjs', 'fflate', 'web-tree-sitter', 'tree-sitter-bash'],
  // CommonJS packages inside an ES module bundle still call require() for Node's built-ins.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  plugins: [englishZodMessagesOnly],
  sourcemap: 'linked',
  logLevel: 'warning',
});
