/**
 * The generic webhook's payload -> a build request and its inline pipeline. Pure.
 *
 *   { "repository": "team/app", "commit": "<sha or any revision id>", "ref": "refs/heads/main",
 *     "pipeline": "version: 1\nsteps: ...", "cloneUrl": "https://git.example.com/team/app.git" }
 *
 * cloneUrl is optional: without it the build has no source, and a pipeline that checks out is
 * refused. It may not carry a credential: it is echoed in the clone step's log.
 *
 * changed_files is optional too: the repository paths the change touches, for `when.paths`
 * (BuildInput.changes); absent, the build has no change and no step is skipped by paths.
 */
import * as z from 'zod';
import { changesOf } from '../contract/index.js';
import { Triggers, type BuildRequest } from './build-request.js';
import { InvalidPayload } from './errors.js';

const MODULE = 'generic-event';

/** How the inline pipeline is named in pipeline errors (the file, for the user, is the payload's field). */
export const INLINE_PIPELINE_FILE = 'inline pipeline';

const text = (max: number) =>
  z
    .string()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');

const genericPayload = z.object({
  repository: text(200),
  commit: text(100),
  ref: text(250),
  pipeline: z.string().min(1, 'must be the pipeline YAML as a string'),
  cloneUrl: text(500)
    // No ssh: the clone step has no key to offer.
    .refine((url) => /^(https?|git):\/\//.test(url), 'must be an https://, http:// or git:// URL')
    .refine((url) => !/^[a-z]+:\/\/[^/]*@/.test(url), 'must not carry a user or password: the clone step prints the URL in its log')
    .optional(),
  changed_files: z
    .array(
      z
        .string()
        .min(1, 'must not be empty')
        .max(1024, 'must be at most 1024 characters')
        .regex(/^[^\0\n\r]+$/, 'must be one path on one line'),
    )
    .optional(),
});

export interface GenericDelivery {
  request: BuildRequest;
  pipeline: { file: string; text: string };
}

export function decideGenericDelivery(payload: unknown): GenericDelivery {
  const result = genericPayload.safeParse(payload);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue?.path.join('.') || '(root)';
    const message =
      issue?.code === 'invalid_type' ? `expected ${issue.expected}` : (issue?.message ?? 'invalid');
    throw new InvalidPayload(
      `The generic payload must be {"repository", "commit", "ref", "pipeline"} strings (and optionally "cloneUrl", and "changed_files", an array of paths): ${field}: ${message}.`,
      MODULE,
    );
  }
  const { repository, commit, ref, pipeline, cloneUrl, changed_files: changedFiles } = result.data;
  return {
    request: {
      trigger: Triggers.generic,
      event: 'generic',
      repository,
      commit,
      ref,
      ...(cloneUrl ? { cloneUrl } : {}),
      ...(changedFiles ? { changes: changesOf(changedFiles) } : {}),
    },
    pipeline: { file: INLINE_PIPELINE_FILE, text: pipeline },
  };
}
