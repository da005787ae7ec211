// `kruntimes podstep prepare|report`: the two helper containers of a step Pod (src/runtime/pod.ts).
// prepare writes the step's script and files into the Pod's volumes; report prints what the step
// wrote, bounded as the bash runtime bounds it, as one line the executor reads from this container's log.
import '../src/node-version.js';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { POD_PATHS, readPrepared, REPORT_PREFIX, type Report } from '../src/runtime/pod.js';
import { readBounded, readOutputDir, writeFiles } from '../src/runtime/outputdir.js';
import { MAX_OUTPUT_FILE_BYTES } from '../src/runtime/outputs.js';
import { MAX_CONTROL_FILE_BYTES } from '../src/runtime/control-file.js';
import { MAX_STATUS_FILE_BYTES } from '../src/runtime/statusfile.js';

async function prepare(): Promise<void> {
  const p = readPrepared(process.env);
  await mkdir(dirname(POD_PATHS.script), { recursive: true });
  await mkdir(POD_PATHS.workspace, { recursive: true });
  await mkdir(dirname(POD_PATHS.control), { recursive: true });
  if (p.script !== undefined) await writeFile(POD_PATHS.script, p.script);
  for (const f of [POD_PATHS.output, POD_PATHS.control, POD_PATHS.status]) await writeFile(f, '');
  await writeFiles(POD_PATHS.input, p.input);
  await writeFiles(POD_PATHS.outputDir, p.output);
}

async function report(): Promise<void> {
  const r: Report = {
    output: await readBounded(POD_PATHS.output, MAX_OUTPUT_FILE_BYTES),
    control: await readBounded(POD_PATHS.control, MAX_CONTROL_FILE_BYTES),
    status: await readBounded(POD_PATHS.status, MAX_STATUS_FILE_BYTES),
    files: await readOutputDir(POD_PATHS.outputDir),
  };
  process.stdout.write(`\n${REPORT_PREFIX}${JSON.stringify(r)}\n`);
}

const verb = process.argv[2];
if (verb === 'prepare') await prepare();
else if (verb === 'report') await report();
else {
  console.error('usage: kruntimes podstep prepare|report');
  process.exit(2);
}
