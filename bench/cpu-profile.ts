// Summarises a V8 CPU profile (node --cpu-prof): the functions with the most self time, and self
// time per package (node_modules/<name>, the project's own src/, node's internals, GC), as Markdown.
//
//   npx tsx bench/cpu-profile.ts <file.cpuprofile> [top=25] [last milliseconds only]
//
// `npm run bench -- throughput --cpu-prof <dir>` writes such a profile of the real server.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  endTime: number;
  startTime: number;
}

/** Samples per node, counting only those taken in the profile's last `lastMs` (all when not given). */
function hitsPerNode(profile: Profile, lastMs?: number): Map<number, number> {
  const hits = new Map<number, number>();
  const from = lastMs === undefined ? -Infinity : profile.endTime - lastMs * 1000;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i]!;
    if (at >= from) hits.set(id, (hits.get(id) ?? 0) + 1);
  });
  return hits;
}

/** `lastMs` leaves out what came before (start-up, when the profile covers a whole process). */
export function summariseProfile(file: string, top = 25, lastMs?: number): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const hitsOf = hitsPerNode(profile, lastMs);
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const hits = hitsOf.get(node.id) ?? 0;
    if (!hits) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') continue;
    total += hits;
    const where = url.replace(/^file:\/\/.*?\/(node_modules|src)\//, '$1/');
    const name = `${functionName || '(anonymous)'} ${where ? `${where}:${lineNumber + 1}` : ''}`.trim();
    byFunction.set(name, (byFunction.get(name) ?? 0) + hits);
    byPackage.set(packageOf(url, functionName), (byPackage.get(packageOf(url, functionName)) ?? 0) + hits);
  }
  const share = (hits: number) => `${((100 * hits) / total).toFixed(1)}%`;
  const table = (title: string, map: Map<string, number>, limit: number) => [
    `| ${title} | self time |`,
    '|---|---|',
    ...[...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([key, hits]) => `| \`${key}\` | ${share(hits)} |`),
  ];
  return [...table('package', byPackage, 20), '', ...table('function', byFunction, top)].join('\n');
}

/** node_modules/<name> (scoped names whole), src/ of the project, node: internals, or V8's own entries. */
function packageOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inModules) return inModules[1]!;
  if (url.startsWith('node:')) return 'node internals';
  const inSrc = /\/src\/([^/]+)/.exec(url);
  return inSrc ? `src/${inSrc[1]}` : url;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, top, lastMs] = process.argv.slice(2);
  if (!file) throw new Error('usage: npx tsx bench/cpu-profile.ts <file.cpuprofile> [top=25] [last milliseconds only]');
  console.log(summariseProfile(file, Number(top ?? 25), lastMs ? Number(lastMs) : undefined));
}
