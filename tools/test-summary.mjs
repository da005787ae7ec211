// Prints `tests: N passed, N failed[, N skipped]` from jest's --json report.
import { readFileSync } from 'node:fs';

const path = process.argv[2] ?? '.jest-report.json';
let report;
try {
  report = JSON.parse(readFileSync(path, 'utf8'));
} catch {
  console.log('tests: 0 passed, 0 failed (no test report was written)');
  process.exit(0);
}
// A suite that failed to run (a setup or compile error) has no test results: count it as a failure.
const brokenSuites = report.testResults.filter(
  (s) => s.status === 'failed' && s.assertionResults.length === 0,
).length;
const failed = report.numFailedTests + brokenSuites;
const skipped = report.numPendingTests + report.numTodoTests;
console.log(
  `tests: ${report.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`,
);
