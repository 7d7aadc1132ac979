/**
 * The build's first step when its pipeline checks out: a git container that fetches exactly the
 * commit that triggered the build into the workspace. It is a step like the others (its own pod,
 * log and result), so it shows in the console and in `run --json` as `clone`.
 */
import type { BuildSource } from '../contract/index.js';
import { GIT_TOKEN_KEY, shellQuote } from '../kube/index.js';
import { CHECKOUT_STEP, type CheckoutSettings, type ImageReference, type PodStep } from '../pipeline/index.js';
import { keyHashCommands } from './cache-keys.js';

/** Long enough for a large repository over a slow link; a hung fetch ends here, not at 24 h. */
export const CHECKOUT_TIMEOUT_SECONDS = 15 * 60;

/** The clone container's variable for the token; git reads it through the helper below. */
const TOKEN_ENV = 'GIT_TOKEN';

/**
 * Hands git the token when the server asks, read from the environment at that moment: the token
 * is in no command line, no echoed command and no file of the workspace (its .git/config keeps
 * only this text, which later steps, without the variable, cannot use).
 */
const CREDENTIAL_HELPER = `!f() { echo username=x-access-token; echo "password=$${TOKEN_ENV}"; }; f`;

/**
 * Where an uploaded source lands in the workspace (BuildSource.upload): a bare repository in
 * `dir`, and `done` once it is complete. The clone fetches from it and then removes both, so the
 * checkout looks like any other.
 */
export const UPLOADED_SOURCE = { dir: '.step-runner-source', done: '.step-runner-source.done' } as const;

/** How long the clone waits for an uploaded source; the runner sends it as soon as the container runs. */
export const UPLOAD_WAIT_SECONDS = 10 * 60;

/**
 * `image`: the deployment's clone image, parsed once by PrepareBuild. `credentialsSecret`: the build's Secret holding the token for a private repository. `keyFiles`:
 * the cache's key-file sets (keyFileSets), whose hashes the clone prints once it has the commit.
 */
export function checkoutStep(
  source: BuildSource,
  checkout: CheckoutSettings,
  image: ImageReference,
  credentialsSecret?: string,
  keyFiles: ReadonlyMap<string, readonly string[]> = new Map(),
): PodStep {
  const depth = checkout.depth > 0 ? ` --depth=${checkout.depth}` : '';
  const url = shellQuote(source.upload ? UPLOADED_SOURCE.dir : source.url);
  const commit = shellQuote(source.commit);
  // Servers that will not hand out a commit by its id (not every git server allows it) still
  // serve the ref it was pushed to; the commit is then checked out from what that brought.
  const fetchRef = source.ref ? ` || git fetch --no-tags origin ${shellQuote(source.ref)}` : '';
  const keyFileLists = [...keyFiles.values()];
  // [command, what the log shows instead] for the runner's plumbing; git's own commands show whole.
  const lines: [command: string, shown?: string][] = [];
  if (source.upload) lines.push([awaitUpload(), 'wait for the source step-runner sends']);
  lines.push(['git init -q .']);
  if (credentialsSecret) lines.push([`git config credential.helper ${shellQuote(CREDENTIAL_HELPER)}`, 'git config credential.helper (the token from $GIT_TOKEN)']);
  lines.push([`git remote add origin ${url}`], [`git fetch --no-tags${depth} origin ${commit}${fetchRef}`]);
  if (source.upload) lines.push([`git remote remove origin && rm -rf ${UPLOADED_SOURCE.dir} ${UPLOADED_SOURCE.done}`, 'remove the uploaded source']);
  lines.push([`git -c advice.detachedHead=false checkout -q ${commit}`]);
  if (checkout.submodules) lines.push([`git submodule update --init --recursive${depth}`]);
  lines.push(['git log -1 --format="checked out %H: %s"']);
  lines.push(...keyHashCommands(keyFiles).map((command, i): [string, string] => [command, `hash the cache's key files: ${keyFileLists[i]!.join(' ')}`]));
  const shownAs = Object.fromEntries(lines.flatMap(([, shown], i) => (shown ? [[i, shown]] : [])));
  return {
    name: CHECKOUT_STEP,
    image: image.original,
    imageRef: image,
    commands: lines.map(([command]) => command),
    ...(Object.keys(shownAs).length > 0 ? { shownAs } : {}),
    // A private repository without credentials must fail, not wait for a password on a terminal.
    env: { GIT_TERMINAL_PROMPT: '0' },
    pull: 'if-not-present',
    timeoutSeconds: CHECKOUT_TIMEOUT_SECONDS,
    // A reference only: FinishStep also masks the value, should git ever print it.
    secrets: credentialsSecret ? [{ env: TOKEN_ENV, secret: credentialsSecret, key: GIT_TOKEN_KEY }] : [],
  };
}

/** One command (the log shows what it does, not its loop): wait for the upload's `done`, or fail saying who sends it. */
function awaitUpload(): string {
  const tries = UPLOAD_WAIT_SECONDS;
  const why =
    `no source arrived within ${UPLOAD_WAIT_SECONDS / 60} min: the step-runner that started this build sends it ` +
    '(run --kubeconfig), and must still be running and allowed to create pods/exec';
  return `i=0; until [ -e ${UPLOADED_SOURCE.done} ]; do if [ $i -ge ${tries} ]; then echo ${shellQuote(why)} >&2; exit 1; fi; i=$((i+1)); sleep 1; done`;
}
