// Turns the cluster webhook configurations (kubectl kustomize config/webhook, on stdin) into the
// local ones: clientConfig points at https://127.0.0.1:<port> and carries the local CA bundle.
// Usage: node tools/local-webhook.mjs <port> <ca.crt>
import { readFileSync } from 'node:fs';
import { parseAllDocuments, stringify } from 'yaml';

const [port, caFile] = process.argv.slice(2);
const caBundle = readFileSync(caFile).toString('base64');
const docs = parseAllDocuments(readFileSync(0, 'utf8')).map((d) => d.toJSON());
const out = docs
  .filter((d) => d && /WebhookConfiguration$/.test(d.kind))
  .map((d) => {
    delete d.metadata.annotations?.['cert-manager.io/inject-ca-from'];
    for (const w of d.webhooks) {
      w.clientConfig = { url: `https://127.0.0.1:${port}${w.clientConfig.service.path}`, caBundle };
    }
    return stringify(d);
  });
process.stdout.write(out.join('---\n'));
