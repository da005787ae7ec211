import { readFileSync } from 'node:fs';
import { generatedFiles } from './generated.js';

// The schemas in schema.ts are the one source of truth: the committed CRDs and TypeScript types
// must be exactly what they generate.
describe('generated API files', () => {
  it('are up to date with src/api/schema.ts (run `npm run gen`)', async () => {
    const files = await generatedFiles();
    expect(Object.keys(files).sort()).toEqual([
      'config/crd/kustomization.yaml',
      'config/crd/promises.yaml',
      'config/crd/runs.yaml',
      'config/crd/workflowruns.yaml',
      'config/crd/workflows.yaml',
      'config/crd/works.yaml',
      'src/api/types.generated.ts',
    ]);
    for (const [path, text] of Object.entries(files)) {
      expect({ path, text: readFileSync(path, 'utf8') }).toEqual({ path, text });
    }
  });
});
