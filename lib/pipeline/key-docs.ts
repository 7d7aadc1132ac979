/**
 * What each key of a pipeline file means, as docs/pipeline.md's key table shows it
 * (scripts/generate-docs.ts writes the table; `npm run docs`). The schema decides which keys
 * exist: the generator refuses a key the schema accepts without an entry here, and an entry for a
 * key the schema refuses (knownKeys in schema.ts), so the table cannot drift from the code.
 * Keys are written as the table names them: a step's own `cache` and `services` entries have the
 * pipeline's keys, documented once under `cache[]` and `services[]`. Text is Markdown, its links
 * relative to docs/pipeline.md.
 */
export interface KeyDoc {
  /** What the value is, as a person writes it. */
  type: string;
  /** What it is when left out (`required` when it cannot be). */
  default: string;
  /** What it does. */
  does: string;
}

/** In the table's order: the pipeline's own keys and their maps, then a step's. */
export const pipelineKeyDocs: Record<string, KeyDoc> = {
  'version': { type: 'integer', default: 'required', does: 'must be `1`' },
  'steps': { type: 'list of steps', default: 'required', does: '1 to 50 steps, run in order, one at a time, unless they say `needs` ([below](#steps-side-by-side))' },
  'concurrency': { type: '`false` or a map', default: 'a pull request\'s builds: one group per pull request; every other build: none', does: 'the group of builds of which only the newest runs: a newer build stops the older one as `Superseded` ([below](#superseded-builds)); `false`: none, not even a pull request\'s' },
  'concurrency.group': { type: 'text with `${VARIABLE}`s', default: 'required', does: 'which builds are one group, e.g. `"${CI_REPOSITORY}-${CI_PR_OR_BRANCH}"`; the variables are `CI_REPOSITORY`, `CI_REF`, `CI_BRANCH`, `CI_EVENT`, `CI_PR_NUMBER` and `CI_PR_OR_BRANCH` (`pull/N` or the branch); any other is refused with its line' },
  'concurrency.cancel-in-progress': { type: '`true` or `false`', default: '`true`', does: '`false`: the group is said but stops nothing (builds are never queued)' },
  'max-parallel': { type: 'whole number, 1 to 40', default: 'the deployment\'s `maxParallelSteps` (10)', does: 'with `needs`: the most steps that run at once; the deployment\'s setting is also the ceiling' },
  'identity': { type: 'text', default: 'none', does: 'every step\'s `identity`, unless it names its own ([deploy from a build](deploy.md#deploy-from-a-build))' },
  'image-pull-grace': { type: 'duration', default: 'the deployment\'s (60 s)', does: 'how long a transient image pull error may last before the step fails' },
  'pending-timeout': { type: 'duration', default: '`5m`', does: 'every step\'s `pending-timeout`, unless it says its own ([below](#pods-that-wait))' },
  'checkout': { type: '`false`, `true` or a map', default: '`{depth: 1, submodules: false}`', does: 'the build\'s checkout ([below](#the-workspace-and-the-checkout)); `false`: no `clone` step, an empty workspace' },
  'checkout.depth': { type: 'whole number', default: '`1`', does: 'commits of history to fetch; `0` for all of it' },
  'checkout.submodules': { type: '`true` or `false`', default: '`false`', does: 'also check out submodules, recursively' },
  'when': { type: 'map of `paths` or `paths-ignore`', default: 'none', does: 'the files every step of the pipeline is for, as a step\'s `when.paths` / `when.paths-ignore` (the pipeline\'s holds these two keys only); a build none of whose steps runs checks nothing out, starts no pod and reports success, its status saying it was skipped' },
  'when.paths': { type: 'list of globs (or one)', default: 'any change', does: 'every step runs only when a changed file matches one' },
  'when.paths-ignore': { type: 'list of globs (or one)', default: 'none', does: 'every step is skipped when every changed file matches one; not beside `when.paths`' },
  'pull-secrets': { type: 'list of Secret names', default: '`[]`', does: '`kubernetes.io/dockerconfigjson` Secrets in the build namespace that every pod of the build (the `clone` step\'s too) pulls its images with, besides the deployment\'s `stepPullSecrets`; naming any replaces the service account\'s pull secrets' },
  'service-start-grace': { type: 'duration', default: '`2m`', does: 'how long a service\'s `ports` may take to accept connections before the step fails ([below](#services))' },
  'services': { type: 'list of services', default: '`[]`', does: 'containers that run beside every step, in its pod ([below](#services))' },
  'services[].name': { type: 'text', default: 'required', does: 'DNS-1123 label, unique among a step\'s services (the pipeline\'s and its own); not `step`, `clone` or `port-N`; also the service\'s host name in the pod' },
  'services[].image': { type: 'text', default: 'required', does: 'the image reference, checked before any pod exists (always: services have no `image-check`); its ENTRYPOINT and CMD run unless `entrypoint` or `command` replace them' },
  'services[].entrypoint': { type: 'list of words (or one)', default: 'the image\'s ENTRYPOINT', does: 'what runs instead of the image\'s ENTRYPOINT (the container\'s `command`); without `command`, the image\'s CMD is dropped too, as in Kubernetes and Docker. Run without a shell: `[sh, -c]` for one ([below](#services))' },
  'services[].command': { type: 'list of words (or one)', default: 'the image\'s CMD', does: 'the arguments instead of the image\'s CMD (the container\'s `args`), after the ENTRYPOINT, e.g. `[postgres, -c, fsync=off]`; one word may be written as text, a line with spaces only as a list; each word reaches the container as written (no `$(VAR)`)' },
  'services[].env': { type: 'map `NAME: value`', default: '`{}`', does: 'the service\'s environment variables, as for a step (the build\'s variables are not added)' },
  'services[].ports': { type: 'list of TCP ports', default: '`[]`', does: 'the step starts only once each accepts connections' },
  'services[].secrets': { type: 'list', default: '`[]`', does: 'variables from Kubernetes Secrets, as `steps[].secrets`' },
  'services[].pull': { type: '`always`, `if-not-present` or `never`', default: '`if-not-present`', does: 'the image pull policy' },
  'cache': { type: 'list of caches', default: '`[]`', does: 'what every step restores before its commands and saves after them, by key, in the deployment\'s bucket ([contract](contracts.md#cache-and-artifacts)); a step\'s own `cache` replaces it' },
  'cache[].key': { type: 'map of `files` and/or `prefix`', default: 'required', does: 'the entry\'s name: `prefix-hash`, `hash` (files only) or `prefix`' },
  'cache[].key.files': { type: 'list of globs (or one)', default: 'none', does: 'tracked files whose content makes the hash, e.g. `[package-lock.json]`; git pathspec globs (`*` does not cross `/`, `**` does); a pattern that matches no tracked file is refused when the build checks out' },
  'cache[].key.prefix': { type: 'text', default: 'none', does: 'letters, digits, `.`, `_`, `-`, starting with a letter or digit, at most 100' },
  'cache[].paths': { type: 'list of paths (or one)', default: 'required', does: 'files and folders to keep, relative to the workspace (no leading `/`, no `..`, no `~`)' },
  'cache[].fallback-keys': { type: 'list of key prefixes (or one)', default: '`[]`', does: 'tried in order when the exact key misses: the newest entry whose key starts with one, the build\'s branch first, then the default branch' },
  'cache[].policy': { type: '`pull`, `push` or `pull-push`', default: '`pull-push`', does: '`pull`: restore only; `push`: save only; saved only when the exact key missed' },
  'steps[].name': { type: 'text', default: 'required', does: 'DNS-1123 label, unique in the file; not `clone` while the pipeline checks out' },
  'steps[].image': { type: 'text', default: 'required (unless `build`)', does: 'the image reference, checked before any pod exists' },
  'steps[].commands': { type: 'list of text (or one text)', default: 'required (unless `build`)', does: 'run by `/bin/sh` in one shell, each echoed; the first failing one ends the step' },
  'steps[].build': { type: 'map', default: 'none', does: 'build an image from a Dockerfile of the workspace and push it, instead of `image` and `commands` (not beside them); the step\'s `secrets` reach the build as build secrets ([Build an image](../README.md#build-an-image))' },
  'steps[].build.context': { type: 'path', default: '`.`', does: 'the build context, a folder of the workspace (no leading `/`, no `..`)' },
  'steps[].build.dockerfile': { type: 'path', default: '`Dockerfile`', does: 'relative to the context; PrepareBuild checks each `FROM` image in its registry before any pod' },
  'steps[].build.target': { type: 'stage name', default: 'the last stage', does: 'the stage to build' },
  'steps[].build.build-args': { type: 'map `NAME: value`', default: '`{}`', does: '`--build-arg`s; also resolve `FROM $NAME` for the base image check. Never a secret: they stay in the image\'s history' },
  'steps[].build.tags': { type: 'list of image references (or one)', default: 'required unless `push: false`', does: 'each pushed, e.g. `ghcr.io/org/app:1.4`: a tag, never a digest, written as it is (no variables); the pushed digest is the step\'s `pushed.digest` in `run --json`' },
  'steps[].build.push': { type: '`true` or `false`', default: '`true`', does: '`false`: build only (a pull request\'s check)' },
  'steps[].build.cache': { type: 'image repository', default: 'none', does: 'where layers are kept between builds (`--cache-from`/`--cache-to`, one tag per layer), e.g. `ghcr.io/org/app/cache`; a fork\'s pull request reads it and never writes it. A second build of an unchanged Dockerfile rebuilds nothing' },
  'steps[].build.labels': { type: 'map `key: value`', default: '`{}`', does: 'image labels, over `org.opencontainers.image.revision` (the commit) and `org.opencontainers.image.source` (the repository) that every build gets' },
  'steps[].env': { type: 'map `NAME: value`', default: '`{}`', does: 'environment variables; values are text as written (`KEY: ""` for an empty one)' },
  'steps[].pull': { type: '`always`, `if-not-present` or `never`', default: '`if-not-present`', does: 'the image pull policy' },
  'steps[].timeout': { type: 'duration', default: '`1h`', does: 'the step\'s deadline; past it the step ends `StepTimedOut`. All steps\' timeouts together may be at most `24h` (an execution\'s limit): a file past it is refused when read' },
  'steps[].pending-timeout': { type: 'duration', default: 'the pipeline\'s, else `5m`', does: 'how long the step\'s pod may go with no event and no status change (no scheduler has answered; `ContainerCreating` with no word from the kubelet) before the step ends `PodStalled`; set here, it also bounds a wait for room on a cluster with no node autoscaler, which otherwise lasts up to the step\'s `timeout` ([below](#pods-that-wait))' },
  'steps[].resources': { type: 'map', default: 'none', does: 'requests = limits' },
  'steps[].resources.cpu': { type: 'quantity', default: 'none', does: 'e.g. `500m`, `0.5`, `1`' },
  'steps[].resources.memory': { type: 'quantity', default: 'none', does: 'e.g. `512Mi`, `1Gi`' },
  'steps[].secrets': { type: 'list', default: '`[]`', does: 'variables from Kubernetes Secrets in the build namespace' },
  'steps[].secrets[].env': { type: 'variable name', default: 'required', does: 'the variable the step sees (not also in `env`)' },
  'steps[].secrets[].secret': { type: 'text', default: 'required', does: 'the Secret\'s name' },
  'steps[].secrets[].key': { type: 'text', default: 'required', does: 'the key inside the Secret' },
  'steps[].image-check': { type: '`true` or `false`', default: '`true`', does: '`false`: PrepareBuild does not ask the registry about this step\'s image' },
  'steps[].node-selector': { type: 'map `label: value`', default: '`{}`', does: 'node labels the step\'s node must have, merged over the deployment\'s `stepNodeSelector` (the step\'s value wins for a key)' },
  'steps[].tolerations': { type: 'list', default: '`[]`', does: 'taints the step\'s pod tolerates, after the deployment\'s `stepTolerations`' },
  'steps[].tolerations[].key': { type: 'label key', default: 'required unless `operator: Exists`', does: 'the taint\'s key; `operator: Exists` without a key tolerates every taint' },
  'steps[].tolerations[].operator': { type: '`Equal` or `Exists`', default: '`Equal`', does: '`Exists`: any value of the key (then no `value`)' },
  'steps[].tolerations[].value': { type: 'label value', default: '`""`', does: 'the taint\'s value, for `Equal`' },
  'steps[].tolerations[].effect': { type: '`NoSchedule`, `PreferNoSchedule` or `NoExecute`', default: 'every effect', does: 'the taint\'s effect' },
  'steps[].tolerations[].toleration-seconds': { type: 'whole seconds', default: 'for ever', does: '`NoExecute` only: how long the pod may stay once the taint appears' },
  'steps[].needs': { type: 'list of step names (or one)', default: 'the step above it', does: 'start after exactly these steps have succeeded; `[]`: start with the build (after the checkout) ([below](#steps-side-by-side))' },
  'steps[].services': { type: 'list of services', default: '`[]`', does: 'this step\'s own services, after the pipeline\'s; each as `services[]` above' },
  'steps[].cache': { type: 'list of caches', default: 'the pipeline\'s `cache`', does: 'this step\'s own caches, instead of the pipeline\'s; each as `cache[]` above; `[]`: none' },
  'steps[].artifacts': { type: 'map', default: 'none', does: 'files the step keeps once its commands end, whether they succeeded or failed ([Artifacts](#artifacts))' },
  'steps[].artifacts.paths': { type: 'list of paths (or one)', default: 'required', does: 'files, or folders with a trailing `/`, relative to the workspace (no leading `/`, no `..`)' },
  'steps[].artifacts.expire-in': { type: 'days or weeks', default: '`30d`', does: 'how long they are kept, e.g. `7d`, `2w`; 1 to 365 days' },
  'steps[].retry': { type: 'whole number, or map `{max, on}`', default: '`{max: 2, on: [StepInterrupted, ContainerRuntimeTimeout]}`', does: 'try a failed attempt again, in a fresh pod on the same workspace; a number is `max` with the default `on`. Each attempt\'s log is kept, and the step\'s result says how many attempts it took' },
  'steps[].retry.max': { type: 'whole number', default: '`2`', does: 'retries after the first attempt, 0 to 5; `0`: none, not even for `StepInterrupted`' },
  'steps[].retry.on': { type: 'list of Errors (or one)', default: '`[StepInterrupted, ContainerRuntimeTimeout]`', does: 'the Errors that are retried, each once, at least one; only those a fresh pod can fix: `StepInterrupted`, `StepFailed`, `StepTimedOut`, `PodLost`, `ServiceFailed`, `ContainerRuntimeTimeout` (any other is refused with the reason)' },
  'steps[].identity': { type: 'text', default: 'the pipeline\'s, else none', does: 'one of the identities the deployment declares: the step\'s pod runs as its service account, and so gets its AWS role through EKS Pod Identity. A name the deployment does not declare is refused with its line; a build the identity\'s rules do not allow (repository, ref, event, a fork\'s pull request) ends `IdentityNotAllowed` before any pod ([deploy from a build](deploy.md#deploy-from-a-build))' },
  'steps[].when': { type: 'map', default: 'none (always runs)', does: 'run the step only for these branches, events and changed files ([below](#conditional-steps))' },
  'steps[].when.branch': { type: 'list of names or globs (or one)', default: 'any branch', does: 'e.g. `[main, "release/*"]`; `*` does not cross `/`, `**` does' },
  'steps[].when.event': { type: 'list of `push`, `pull_request`, `tag`, `generic`, `local` (or one)', default: 'any event', does: 'the build\'s event; a `refs/tags/...` ref is `tag`' },
  'steps[].when.status': { type: '`[failure]` (or `failure`)', default: '`[success]`', does: '`failure`: run the step only once the build has failed ([below](#conditional-steps))' },
  'steps[].when.paths': { type: 'list of globs (or one)', default: 'any change', does: 'run the step only when at least one changed file matches one, e.g. `["services/api/**", go.mod]`; globs as `branch`\'s, against repository paths (no leading `/`, no `..`, no `\\`); the change is the push\'s or the pull request\'s files (locally: `run --changed` / `--base`); not known or not given: the step runs. A step that needs a skipped one is skipped too' },
  'steps[].when.paths-ignore': { type: 'list of globs (or one)', default: 'none', does: 'skip the step when every changed file matches one, e.g. `["docs/**", "*.md"]`; not beside `paths` on the same `when` (as GitHub Actions)' },
};
