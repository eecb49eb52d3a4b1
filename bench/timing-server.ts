/**
 * The simulator, alone in its own process, for the timing-error benchmark (bench/timing-error.ts):
 * fixed timing, ground truth kept in memory. Prints "PORT <n>"; on the IPC message "dump" it
 * writes its ground truth (JSON lines) to the file given as argv[2] and answers "dumped"; on
 * "clock" it answers its epoch time (timeOrigin + now), for clock-offset calibration.
 *
 *   npx tsx bench/timing-server.ts /tmp/gt.jsonl [perTokenMs]
 */
import { writeFileSync } from 'node:fs';
import { startSimServer } from '../src/sim/index.js';

const out = process.argv[2] ?? '/tmp/infermeter-gt.jsonl';
const perTokenMs = Number(process.argv[3] ?? 50);
const server = await startSimServer({ timing: { kind: 'fixed', prefillMs: 20, perTokenMs }, collectGroundTruth: true });
process.stdout.write(`PORT ${server.port}\n`);
process.on('message', (m) => {
  if (m === 'clock') process.send?.({ epoch: performance.timeOrigin + performance.now() });
  if (m === 'dump') {
    writeFileSync(out, server.groundTruth.map((e) => JSON.stringify(e)).join('\n') + '\n');
    server.groundTruth.length = 0;
    process.send?.({ dumped: true, lateness: server.lateness() });
  }
});
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
