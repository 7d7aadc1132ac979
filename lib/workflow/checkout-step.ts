/**
 * The build's first step when its pipeline checks out: a git container that fetches exactly the
 * commit that triggered the build into the workspace. It is a step like the others (its own pod,
 * log and result), so it shows in the console and in `run --json` as `clone`.
 */
import type { BuildSource } from '../contract/index.js';
import { GIT_TOKEN_KEY, shellQuote } from '../kube/index.js';
import { CHECKOUT_STEP, type CheckoutSettings, type Step } from '../pipeline/index.js';

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

/** `credentialsSecret`: the build's Secret holding the token for a private repository. */
export function checkoutStep(source: BuildSource, checkout: CheckoutSettings, image: string, credentialsSecret?: string): Step {
  const depth = checkout.depth > 0 ? ` --depth=${checkout.depth}` : '';
  const url = shellQuote(source.url);
  const commit = shellQuote(source.commit);
  // Servers that will not hand out a commit by its id (not every git server allows it) still
  // serve the ref it was pushed to; the commit is then checked out from what that brought.
  const fetchRef = source.ref ? ` || git fetch --no-tags origin ${shellQuote(source.ref)}` : '';
  const commands = [
    'git init -q .',
    ...(credentialsSecret ? [`git config credential.helper ${shellQuote(CREDENTIAL_HELPER)}`] : []),
    `git remote add origin ${url}`,
    `git fetch --no-tags${depth} origin ${commit}${fetchRef}`,
    `git -c advice.detachedHead=false checkout -q ${commit}`,
    ...(checkout.submodules ? [`git submodule update --init --recursive${depth}`] : []),
    'git log -1 --format="checked out %H: %s"',
  ];
  return {
    name: CHECKOUT_STEP,
    image,
    commands,
    // A private repository without credentials must fail, not wait for a password on a terminal.
    env: { GIT_TERMINAL_PROMPT: '0' },
    pull: 'if-not-present',
    timeoutSeconds: CHECKOUT_TIMEOUT_SECONDS,
    // A reference only: FinishStep also masks the value, should git ever print it.
    secrets: credentialsSecret ? [{ env: TOKEN_ENV, secret: credentialsSecret, key: GIT_TOKEN_KEY }] : [],
  };
}
