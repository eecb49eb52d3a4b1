/** This package's version: the one reader lives in util/ (the simulator names it too). */
export { infermeterVersion } from '../util/package-version.js';
