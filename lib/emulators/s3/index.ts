/** The local stack's S3 protocol server (see server.ts for why it exists). */
export { startLocalS3, type LocalS3, type LocalS3Options } from './server.js';
export type { ExpiryRule } from './expiry.js';
