// Preloaded into a benchmarked CLI process (node --import): at exit, writes the process's own
// CPU time and peak resident set to the file named by BENCH_USAGE_FILE, as JSON.
import { writeFileSync } from 'node:fs';
import process from 'node:process';

const file = process.env.BENCH_USAGE_FILE;
if (file) {
  process.on('exit', () => {
    const u = process.resourceUsage();
    writeFileSync(file, JSON.stringify({ user_s: u.userCPUTime / 1e6, system_s: u.systemCPUTime / 1e6, max_rss_kib: u.maxRSS }));
  });
}
