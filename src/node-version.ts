// Imported first by every entry point: a component started on another Node.js than the one the
// project pins (.node-version, fetched by tools/fetch-node.sh) says so in one line and exits 1,
// instead of failing later in a dependency (Node 20 lacks zlib's zstd, which the HTTP client uses).
const MIN: [number, number] = [24, 11];

export function nodeVersionProblem(version: string): string | undefined {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  if (major > MIN[0] || (major === MIN[0] && minor >= MIN[1])) return undefined;
  return `needs Node.js ${MIN.join('.')} or later (the pinned one: tools/fetch-node.sh prints its folder), but runs on ${version}`;
}

const problem = nodeVersionProblem(process.version);
if (problem) {
  process.stderr.write(`${process.argv[1] ?? 'kruntimes'}: ${problem}\n`);
  process.exit(1);
}
