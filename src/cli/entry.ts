/**
 * The process entry (bin/infermeter.js runs the compiled one; tests spawn this file with tsx):
 * runs `main` with the real stdout, stderr and environment and sets the exit code.
 */
import { main } from './main.js';

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
