/**
 * `step-runner trigger`'s command line, and the request it makes of the deployment's generic
 * webhook (lib/forge/generic-event.ts): pure, so both are table-tested.
 */
import { parseArgs } from 'node:util';
import { inputOptions } from './input-args.js';
import { UsageError } from './usage.js';

export const TRIGGER_USAGE = 'trigger --repository R --ref REF [--input NAME=VALUE]... [--commit SHA] [--pipeline FILE] [--url URL] [--json]';

/** Where the deployment is, and its generic webhook's secret, when not on the command line. */
export const TriggerEnv = { url: 'STEP_RUNNER_URL', secret: 'STEP_RUNNER_WEBHOOK_SECRET' } as const;

export const TRIGGER_HELP = `Usage: step-runner ${TRIGGER_USAGE}

Starts a build on a deployment (or a local \`step-runner serve\`) by hand, as GitHub's "Run
workflow" does: a signed POST to its generic webhook with event "manual" and the inputs given.
The build is of the repository's own .step-runner.yml at the commit REF points at when the
deployment reads it (GitHub's, through the deployment's credentials; the --source repository's
for a local server). Its steps see each input as CI_INPUT_<NAME> (the name upper-cased, any
character other than a letter or digit "_"). A missing required input, a value outside its
choices or an input the pipeline does not declare is refused before anything starts, naming the
input: here, when --pipeline names the file, and always by the deployment (a 422). Exit 0 once
the build has started (its execution and where to watch it are printed), 1 if the deployment
refused it, 2 for a command line or inputs refused here.
  --repository R    the repository, owner/name
  --ref REF         the branch (refs/heads/NAME, or just NAME) or tag (refs/tags/NAME) to build
  --input NAME=VALUE  a value of the pipeline's inputs: (repeatable; VALUE may hold "=")
  --commit SHA      build this commit instead of the head of REF (REF is still the build's ref)
  --pipeline FILE   check the inputs against this pipeline file's inputs: before sending
  --url URL         the deployment's webhook endpoint (its HTTP API URL, or a local server's
                    http://127.0.0.1:3000); /webhook/generic is added unless it ends so.
                    Default: $${TriggerEnv.url}
  --json            print the deployment's answer as it came (JSON)
  -h, --help        this help
The generic webhook's secret is read from $${TriggerEnv.secret} (never a flag: a command line
is visible to every user of the machine).`;

export interface TriggerOptions {
  repository: string;
  ref: string;
  inputs: Record<string, string>;
  commit?: string;
  pipeline?: string;
  /** The generic webhook's full URL. */
  url: string;
  secret: string;
  json: boolean;
}

export type TriggerArgs = { help: true } | ({ help: false } & TriggerOptions);

const GENERIC_PATH = '/webhook/generic';

/** The command line and the environment -> what to send, or a UsageError saying what is wrong. */
export function parseTriggerArgs(argv: string[], env: NodeJS.ProcessEnv): TriggerArgs {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      repository: { type: 'string' },
      ref: { type: 'string' },
      input: { type: 'string', multiple: true },
      commit: { type: 'string' },
      pipeline: { type: 'string' },
      url: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return { help: true };
  if (positionals.length > 0) throw new UsageError(`unexpected ${JSON.stringify(positionals[0])}: trigger takes options only`);
  if (!values.repository) throw new UsageError('--repository is required (owner/name)');
  if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(values.repository)) throw new UsageError(`--repository must be owner/name, got "${values.repository}"`);
  if (!values.ref) throw new UsageError('--ref is required (a branch such as main, or refs/tags/v1)');
  const ref = values.ref.startsWith('refs/') ? values.ref : `refs/heads/${values.ref}`;
  if (!/^refs\/(heads|tags)\/[^\s~^:?*[\\]+$/.test(ref)) throw new UsageError(`--ref must be a branch or a tag (refs/heads/NAME or refs/tags/NAME), got "${values.ref}"`);
  if (values.commit !== undefined && !/^[0-9a-f]{40}$/.test(values.commit)) throw new UsageError(`--commit must be a full 40-character commit sha, got "${values.commit}"`);
  const inputs = inputOptions(values.input ?? []);
  const url = values.url ?? env[TriggerEnv.url];
  if (!url) throw new UsageError(`--url (or $${TriggerEnv.url}) is required: the deployment's webhook endpoint`);
  const secret = env[TriggerEnv.secret];
  if (!secret) throw new UsageError(`$${TriggerEnv.secret} is required: the generic webhook's secret, which signs the request`);
  return {
    help: false,
    repository: values.repository,
    ref,
    inputs,
    ...(values.commit !== undefined ? { commit: values.commit } : {}),
    ...(values.pipeline !== undefined ? { pipeline: values.pipeline } : {}),
    url: genericWebhookUrl(url),
    secret,
    json: values.json === true,
  };
}

/** The endpoint's generic webhook: `/webhook/generic` under it, unless the URL already ends so. */
export function genericWebhookUrl(given: string): string {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new UsageError(`--url must be an http:// or https:// URL, got "${given}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError(`--url must be an http:// or https:// URL, got "${given}"`);
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path.endsWith(GENERIC_PATH) ? path : `${path}${GENERIC_PATH}`;
  return url.toString();
}

/** The generic webhook's payload of a manual run: no pipeline (the repository's own), maybe no commit. */
export function triggerPayload(options: Pick<TriggerOptions, 'repository' | 'ref' | 'inputs' | 'commit'>): Record<string, unknown> {
  return { repository: options.repository, ref: options.ref, event: 'manual', inputs: options.inputs, ...(options.commit ? { commit: options.commit } : {}) };
}
