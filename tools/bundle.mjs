// Bundles each component's compiled entry point (dist/<component>/main.js) into one file under
// dist/bundle/, as the local environment and the image run them. One file instead of the several
// thousand modules of the Kubernetes client (every API group and model) loads faster and costs
// the controller about a fifth less memory at rest; see docs/benchmarks.md, "Memory".
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

const common = {
  outbase: 'dist',
  outdir: 'dist/bundle',
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'esm',
  sourcemap: 'linked',
  logLevel: 'warning',
  // Some dependencies are CommonJS and call require() for Node's own modules.
  banner: {
    js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  },
};

// The controller talks to the API server through the thin client (src/kube/rest.ts) and loads
// client-node only for a kubeconfig whose user needs a plugin: that import becomes a chunk of its
// own beside main.js, read only then (docs/benchmarks.md, "Memory").
rmSync('dist/bundle/controller', { recursive: true, force: true });
await build({
  ...common,
  entryPoints: ['dist/controller/main.js'],
  outdir: 'dist/bundle/controller',
  outbase: 'dist/controller',
  splitting: true,
  chunkNames: 'lazy-[name]-[hash]',
});

const entryPoints = ['webhook/main', 'runtimed/main', 'runtimed/launcher', 'runtimed/podstep'].map(
  (e) => `dist/${e}.js`,
);
await build({ ...common, entryPoints });
