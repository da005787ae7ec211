// The text of every file generated from the API schemas, keyed by path from the repository root.
import { compile } from 'json-schema-to-typescript';
import { stringify } from 'yaml';
import { crdFor, KINDS } from './crds.js';
import { typeGenerationSchema } from './typegen.js';

const HEADER = '# Generated from src/api/schema.ts by `npm run gen`. Do not edit.\n';

export async function generatedFiles(): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const k of KINDS) {
    files[`config/crd/${k.plural}.yaml`] = HEADER + stringify(crdFor(k), { lineWidth: 0 });
  }
  files['config/crd/kustomization.yaml'] =
    HEADER +
    stringify({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      resources: KINDS.map((k) => `${k.plural}.yaml`),
    });
  files['src/api/types.generated.ts'] = await compile(typeGenerationSchema(), 'KruntimesApi', {
    bannerComment: '// Generated from src/api/schema.ts by `npm run gen`. Do not edit.',
    additionalProperties: false,
    ignoreMinAndMaxItems: true,
    format: true,
    style: { singleQuote: true, printWidth: 110, trailingComma: 'all' },
  });
  return files;
}
