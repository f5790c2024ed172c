/** The cassette request key lives in src/schema so the harness and the capture proxy share it. */
export { requestHash } from '../../src/schema/requestKey.js';
