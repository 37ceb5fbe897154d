// Preloaded into a process a bench measures (`node --import ./bench/peak-rss.mjs ...`): its peak
// RSS as the last line of its stderr when it exits.
import { writeSync } from 'node:fs';

process.on('exit', () => writeSync(2, `\npeak-rss-mb ${Math.round(process.resourceUsage().maxRSS / 1024)}\n`));
