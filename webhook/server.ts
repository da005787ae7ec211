// The transport: express over HTTPS. It decodes and encodes AdmissionReviews and nothing else;
// every failure path still answers with a well-formed AdmissionReview (or a 4xx for a body that is
// not JSON), never a 5xx.
import express, { type NextFunction, type Request, type Response } from 'express';
import { log } from '../src/telemetry/log.js';
import { opsMiddleware } from '../src/telemetry/ops.js';
import { latency, registry, requests } from './metrics.js';
import { mutateRequest } from './mutate/index.js';
import { decodeReview, deny, type AdmissionRequest, type AdmissionReview } from './review.js';
import { validateRequest, type ValidateDeps } from './validate/index.js';

/** Why /readyz says no. */
export const NOT_READY = 'the Workflow cache has not synced';

/** Kubernetes objects reach ~1.5 MiB; the review carries object and oldObject, plus the envelope. */
export const BODY_LIMIT = '4mb';

export interface AppDeps extends ValidateDeps {
  ready: () => boolean;
}

export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(opsMiddleware({ registry, ready: deps.ready, notReady: NOT_READY }));

  // strict: false so a JSON scalar still gets an AdmissionReview denial rather than a parse error.
  const json = express.json({ limit: BODY_LIMIT, strict: false, type: () => true });
  const answer = (process: (req: AdmissionRequest) => AdmissionReview) => (req: Request, res: Response) => {
    const started = process_hrtime();
    const decoded = decodeReview(req.body);
    let out: AdmissionReview;
    let kind = 'unknown';
    let operation = 'unknown';
    if (!decoded.ok && decoded.invalid) out = deny(decoded.uid, 422, 'Invalid', decoded.message);
    else if (!decoded.ok) {
      out = deny(decoded.uid, 400, 'BadRequest', `malformed AdmissionReview: ${decoded.message}`);
    } else {
      kind = decoded.request.kind.kind;
      operation = decoded.request.operation;
      try {
        out = process(decoded.request);
      } catch (e) {
        log.error({ err: e, uid: decoded.request.uid }, 'admission processing failed');
        out = deny(
          decoded.request.uid,
          400,
          'BadRequest',
          `the webhook could not evaluate this object: ${String(e)}`,
        );
      }
    }
    const result = !decoded.ok ? 'malformed' : out.response.allowed ? 'allowed' : 'denied';
    requests.inc({ kind, operation, result });
    latency.observe({ kind, operation, result }, process_hrtime() - started);
    res.json(out);
  };
  app.post(
    '/validate',
    json,
    answer((r) => validateRequest(r, deps)),
  );
  app.post(
    '/mutate',
    json,
    answer((r) => mutateRequest(r, deps.runCreators)),
  );

  // Body errors (not JSON, too large, wrong encoding) end here: a 4xx with a readable reason, and an
  // AdmissionReview body so a client that reads it still understands.
  app.use(
    (err: Error & { status?: number; type?: string }, _req: Request, res: Response, _next: NextFunction) => {
      const status = err.status && err.status >= 400 && err.status < 500 ? err.status : 400;
      const reason =
        err.type === 'entity.too.large' ? `the request body is larger than ${BODY_LIMIT}` : err.message;
      requests.inc({ kind: 'unknown', operation: 'unknown', result: 'malformed' });
      res.status(status).json(deny('', status, 'BadRequest', `malformed AdmissionReview: ${reason}`));
    },
  );
  return app;
}

function process_hrtime(): number {
  return Number(process.hrtime.bigint()) / 1e9;
}
