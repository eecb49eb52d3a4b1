/** Public API of the simulated inference engine. */
export { startSimServer } from './server.js';
export type { SimServer, SimServerOptions, TimingOptions } from './server.js';
export { serveSim } from './serve-cli.js';
export type { ServeOptions, ServingSim } from './serve-cli.js';
