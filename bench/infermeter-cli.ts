/** `infermeter` from source (via tsx), for benchmarks that run the whole CLI in a child process. */
import { main } from '../src/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
