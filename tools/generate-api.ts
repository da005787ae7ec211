// Writes config/crd/*.yaml and src/api/types.generated.ts from src/api/schema.ts.
// Run with `npm run gen`; src/api/generated.test.ts fails when the committed files are stale.
import { writeFileSync } from 'node:fs';
import { generatedFiles } from '../src/api/generated.js';

for (const [path, text] of Object.entries(await generatedFiles())) {
  writeFileSync(path, text);
  console.log(`wrote ${path}`);
}
