/**
 * Names for an execution started by a webhook. The execution name is what makes a redelivery
 * harmless: it is a pure function of the delivery, so the same delivery asks Step Functions for
 * the same name and gets ExecutionAlreadyExists instead of a second build.
 */
import { createHash } from 'node:crypto';

/** Step Functions: 1..80 characters; `[A-Za-z0-9_-]` keeps CloudWatch Logs and the console happy. */
export const MAX_EXECUTION_NAME = 80;
/** The build id becomes a pod label value and part of pod names: a DNS-1123 label. */
export const MAX_BUILD_ID = 63;
const HASH_LENGTH = 10;

export interface DeliveryIdentity {
  /** `gh` or `generic`: where the delivery came from. */
  source: string;
  /** The delivery id: X-GitHub-Delivery, X-Delivery-Id, or a hash of the body. */
  delivery: string;
  repository?: string;
  commit?: string;
}

/**
 * `<source>-<repo>-<shortsha>-<delivery>-<hash>`: readable where it can be, cut to fit, and always
 * ending in a hash of the exact identity, so that cutting or sanitising can never make two
 * deliveries share a name.
 */
export function executionName(identity: DeliveryIdentity): string {
  const hash = shortHash([identity.source, identity.repository ?? '', identity.commit ?? '', identity.delivery]);
  const repo = identity.repository?.split('/').at(-1);
  const parts = [identity.source, repo?.slice(0, 24), identity.commit?.slice(0, 7), identity.delivery];
  const readable = parts
    .filter((part): part is string => Boolean(part))
    .join('-')
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .slice(0, MAX_EXECUTION_NAME - HASH_LENGTH - 1)
    .replace(/^[-_]+|[-_]+$/g, '');
  return readable ? `${readable}-${hash}` : hash;
}

/**
 * The build id for an execution name: lower-case `[a-z0-9-]`, at most 63 characters, starting and
 * ending with a letter or digit. Lower-casing loses information, so a hash of the exact name ends it.
 */
export function buildIdFor(name: string): string {
  const hash = shortHash([name]);
  const readable = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, MAX_BUILD_ID - HASH_LENGTH - 1)
    .replace(/^-+|-+$/g, '');
  return readable ? `${readable}-${hash}` : hash;
}

/** What a re-run's name says it re-runs; `-rerun-<hash>` (ours) or `-rerun-<n>` (the local page's) is cut off first. */
const RERUN_SUFFIX = /-rerun-(?:[0-9a-f]{10}|\d+)$/;
const LEGAL_NAME = /^[A-Za-z0-9_-]{1,80}$/;

/**
 * The name of a webhook's re-run of an earlier execution: `<earlier>-rerun-<k>`, k a hash of the
 * delivery, so a redelivery asks for the same name again and starts nothing, while every new
 * "Re-run" click (a new delivery) gets a new name. A re-run of a re-run is named from the original,
 * as the local page's re-runs are (lib/local/server/rerun-name.ts), so names never grow; an earlier name
 * too long to keep whole loses its closing hash, then is cut to fit. Without an earlier
 * execution, the delivery's usual name with `rerun` in its source: `gh-rerun-<repo>-<sha>-<delivery>-<hash>`.
 */
export function rerunExecutionName(identity: DeliveryIdentity & { earlier?: string | undefined }): string {
  const earlier = identity.earlier !== undefined && LEGAL_NAME.test(identity.earlier) ? identity.earlier : undefined;
  if (!earlier) return executionName({ ...identity, source: `${identity.source}-rerun` });
  const k = shortHash([identity.source, identity.repository ?? '', identity.commit ?? '', identity.delivery, earlier]);
  const suffix = `-rerun-${k}`;
  const room = MAX_EXECUTION_NAME - suffix.length;
  let base = earlier.replace(RERUN_SUFFIX, '');
  // A delivery's name rarely fits whole: its closing hash goes first (k covers the whole earlier
  // name), so what is left still reads as source, repository, commit and delivery.
  if (base.length > room) base = base.replace(/-[0-9a-f]{10}$/, '');
  return `${base.slice(0, room).replace(/[-_]+$/, '')}${suffix}`;
}

/**
 * The execution name a check run's `external_id` holds: the last field of an execution ARN, or the
 * value itself when it is already a name (check-run.ts writes the ARN, else the build's id).
 * Anything else, such as the empty string another tool leaves there, names nothing.
 */
export function executionNameIn(externalId: string | null | undefined): string | undefined {
  if (!externalId) return undefined;
  const arn = /^arn:aws[a-z-]*:states:[^:]*:[^:]*:execution:[^:]+:([^:]+)$/.exec(externalId);
  const name = arn ? arn[1]! : externalId;
  return LEGAL_NAME.test(name) ? name : undefined;
}

function shortHash(parts: string[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, HASH_LENGTH);
}

/** `arn:aws:states:REGION:ACCOUNT:stateMachine:MACHINE` -> the ARN of its execution NAME. */
export function executionArnFor(stateMachineArn: string, name: string): string {
  const parts = stateMachineArn.split(':');
  if (parts.length < 7 || parts[5] !== 'stateMachine') throw new TypeError(`Not a state machine ARN: ${stateMachineArn}`);
  return [...parts.slice(0, 5), 'execution', parts[6], name].join(':');
}

/** The Step Functions console page of an execution (the region is the ARN's fourth field). */
export function consoleUrlFor(executionArn: string): string {
  const region = executionArn.split(':')[3] ?? '';
  return `https://${region}.console.aws.amazon.com/states/home?region=${region}#/v2/executions/details/${executionArn}`;
}
