// Bundles each component's compiled entry point (dist/<component>/main.js) into one file under
// dist/bundle/, as the local environment and the image run them. One file instead of the several
// thousand modules of the Kubernetes client (every API group and model) loads faster and costs
// the controller about a fifth less memory at rest; see docs/benchmarks.md, "Memory".
import { build } from 'esbuild';

const entryPoints = [
  'controller/main',
  'webhook/main',
  'runtimed/main',
  'runtimed/launcher',
  'runtimed/podstep',
].map((e) => `dist/${e}.js`);
await build({
  entryPoints,
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
});
