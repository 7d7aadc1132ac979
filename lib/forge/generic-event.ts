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
 *
 * A manual run (`step-runner trigger`, issue 40) sends `"event": "manual"` and `"inputs"`, the
 * values of the pipeline's `inputs:` (CI_INPUT_<NAME>), and may leave out "pipeline" and
 * "commit": the build is then of the GitHub repository's own pipeline file, at the commit its ref
 * points at now (both read through the deployment's GitHub credentials, by the webhook), cloned
 * from GitHub with those credentials (so no "cloneUrl": they must not travel to another host), and
 * reported on that commit as a push's build is.
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

/** The events a generic delivery may name: a manual run is one (CI_EVENT, `when.event`). */
export const GenericEvents = ['generic', 'manual'] as const;

const genericPayload = z.object({
  repository: text(200),
  commit: text(100).optional(),
  ref: text(250),
  pipeline: z.string().min(1, 'must be the pipeline YAML as a string').optional(),
  event: z.enum(GenericEvents, `must be ${GenericEvents.join(' or ')}`).optional(),
  inputs: z
    .record(z.string().min(1, 'must not be empty').max(100, 'must be at most 100 characters'), z.string().max(1024, 'must be at most 1024 characters'))
    .refine((inputs) => Object.keys(inputs).length <= 25, 'must hold at most 25 inputs')
    .optional(),
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

/**
 * `pipeline` absent: the repository's own pipeline file, read by the webhook, and `request.commit`
 * empty when the payload named none (the webhook resolves the ref's head first).
 */
export interface GenericDelivery {
  request: BuildRequest;
  pipeline?: { file: string; text: string };
}

export function decideGenericDelivery(payload: unknown): GenericDelivery {
  const result = genericPayload.safeParse(payload);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue?.path.join('.') || '(root)';
    const message =
      issue?.code === 'invalid_type' ? `expected ${issue.expected}` : (issue?.message ?? 'invalid');
    throw new InvalidPayload(
      `The generic payload must be {"repository", "commit", "ref", "pipeline"} strings (and optionally "cloneUrl", "changed_files", an array of paths, "event": "generic" or "manual", and "inputs", a map of text; "pipeline" and "commit" may be left out for a GitHub repository's own file at the ref's head): ${field}: ${message}.`,
      MODULE,
    );
  }
  const { repository, commit, ref, pipeline, cloneUrl, changed_files: changedFiles, event, inputs } = result.data;
  if (pipeline === undefined && !/^[^/]+\/[^/]+$/.test(repository)) {
    throw new InvalidPayload(`The generic payload has no "pipeline", so its repository's own file is read from GitHub: "repository" must be owner/name, not ${JSON.stringify(repository)}.`, MODULE);
  }
  if (pipeline === undefined && cloneUrl !== undefined) {
    throw new InvalidPayload('The generic payload has no "pipeline", so it builds a GitHub repository, cloned from GitHub with the deployment\'s credentials: leave out "cloneUrl".', MODULE);
  }
  if (pipeline !== undefined && commit === undefined) {
    throw new InvalidPayload('The generic payload has a "pipeline" but no "commit": name the commit it builds (only a GitHub repository\'s own file, without "pipeline", is built at the head of its ref).', MODULE);
  }
  const chosenEvent = event ?? (pipeline === undefined ? 'manual' : 'generic');
  const request: BuildRequest = {
    trigger: pipeline === undefined ? Triggers.githubManual : Triggers.generic,
    event: chosenEvent,
    repository,
    commit: commit ?? '',
    ref,
    ...(cloneUrl ? { cloneUrl } : {}),
    ...(changedFiles ? { changes: changesOf(changedFiles) } : {}),
    // A manual run gives inputs (none is still a manual run's answer: its required ones are missing).
    ...(inputs !== undefined || chosenEvent === 'manual' ? { inputs: { ...inputs } } : {}),
  };
  return { request, ...(pipeline !== undefined ? { pipeline: { file: INLINE_PIPELINE_FILE, text: pipeline } } : {}) };
}
