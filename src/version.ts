import { PACKAGE_VERSION } from './files/packageFiles.js';

/** tracegate's own version, from package.json (read once). */
export const TRACEGATE_VERSION: string = PACKAGE_VERSION;
