import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parsePipeline } from '../lib/pipeline/index.js';
import { InvalidImage, InvalidPipeline } from '../lib/pipeline/index.js';

const badDir = fileURLToPath(new URL('./fixtures/pipelines/bad/', import.meta.url));

type Expected = [errorClass: typeof InvalidPipeline | typeof InvalidImage, line: number | undefined, message: string];

/** One entry per file in fixtures/pipelines/bad: the error a user gets, word for word. */
const expectations: Record<string, Expected> = {
  'alias-bomb.yml': [InvalidPipeline, 5, 'alias-bomb.yml line 5: aliases here expand to more than 10000 values (an "alias bomb"); write the values out or use fewer nested aliases'],
  'bad-cpu.yml': [InvalidPipeline, 7, 'bad-cpu.yml line 7: step "build": resources.cpu: "half" is not a Kubernetes quantity (e.g. 500m, 1 or 0.5)'],
  'bad-env-name.yml': [InvalidPipeline, 8, 'bad-env-name.yml line 8: step "build": env.1ST_TRY: "1ST_TRY" is not a valid environment variable name: use letters, digits and "_", not starting with a digit'],
  'bad-image-pull-grace.yml': [InvalidPipeline, 2, 'bad-image-pull-grace.yml line 2: image-pull-grace: "1.5m" has a fraction; use whole units (e.g. 1h30m instead of 1.5h, 90s instead of 1.5m)'],
  'bad-pull-policy.yml': [InvalidPipeline, 6, 'bad-pull-policy.yml line 6: step "build": pull: must be one of always, if-not-present, never, not the text "IfNotPresent"'],
  'bad-pending-timeout.yml': [InvalidPipeline, 7, 'bad-pending-timeout.yml line 7: step "build": pending-timeout: "five minutes" is not a duration; write it like 90s, 10m, 1h30m or 2h'],
  'bad-timeout.yml': [InvalidPipeline, 6, 'bad-timeout.yml line 6: step "build": timeout: "10 minutes" is not a duration; write it like 90s, 10m, 1h30m or 2h'],
  'checkout-negative-depth.yml': [InvalidPipeline, 3, 'checkout-negative-depth.yml line 3: checkout.depth: must be 0 (the whole history) or more'],
  'checkout-not-a-map.yml': [InvalidPipeline, 2, 'checkout-not-a-map.yml line 2: checkout: must be false, or a map with depth and/or submodules, not the text "shallow"'],
  'checkout-typo.yml': [InvalidPipeline, 3, 'checkout-typo.yml line 3: unknown field "submodule" (did you mean "submodules"?)'],
  'clone-step-name.yml': [InvalidPipeline, 3, 'clone-step-name.yml line 3: step "clone": name: "clone" is the name of the build\'s checkout step; rename this step, or set "checkout: false" if the pipeline needs no source'],
  'collection-key.yml': [InvalidPipeline, 6, 'collection-key.yml line 6: this key is a list; a key in a pipeline file is a word or a number (quote it if it is meant as text)'],
  'command-not-string.yml': [InvalidPipeline, 7, 'command-not-string.yml line 7: step "build": commands[1]: each command must be text, not a map (quote it if YAML read it as something else)'],
  'duplicate-step-names.yml': [InvalidPipeline, 6, 'duplicate-step-names.yml line 6: step "test": name: the name "test" is already used by steps[0]; step names must be unique'],
  'duplicate-yaml-key.yml': [InvalidPipeline, 6, 'duplicate-yaml-key.yml line 6: the key "image" appears twice in the same map'],
  'empty-commands.yml': [InvalidPipeline, 5, 'empty-commands.yml line 5: step "build": commands: must list at least one command'],
  'empty-file.yml': [InvalidPipeline, undefined, 'empty-file.yml: the file is empty: a pipeline starts with "version: 1" and a list of "steps"'],
  'env-null-value.yml': [InvalidPipeline, 7, 'env-null-value.yml line 7: step "build": env.TOKEN: has no value; write "" for an empty string'],
  'image-and-other-problems.yml': [InvalidPipeline, 4, 'image-and-other-problems.yml line 4: step "build": image "Alpine" is not a valid image reference: the repository "Alpine" has uppercase letters; repository names must be lowercase (try "alpine") (and 1 more problem)'],
  'image-bad-digest.yml': [InvalidImage, 4, 'image-bad-digest.yml line 4: step "build": image "alpine@sha256:1234abcd" is not a valid image reference: a sha256 digest has 64 hex characters, this one has 8'],
  'image-empty-tag.yml': [InvalidImage, 7, 'image-empty-tag.yml line 7: step "build": image "alpine:" is not a valid image reference: the tag after ":" is empty; write alpine:<tag> (e.g. alpine:latest) or leave out the ":"'],
  'image-scheme.yml': [InvalidImage, 4, 'image-scheme.yml line 4: step "build": image "https://ghcr.io/org/builder:1.0" is not a valid image reference: remove the "https://" prefix: image references name the registry host without a protocol, e.g. ghcr.io/org/builder:1.0'],
  'image-uppercase.yml': [InvalidImage, 4, 'image-uppercase.yml line 4: step "build": image "Alpine:3.20" is not a valid image reference: the repository "Alpine" has uppercase letters; repository names must be lowercase (try "alpine:3.20")'],
  'memory-millibytes.yml': [InvalidPipeline, 6, 'memory-millibytes.yml line 6: step "build": resources.memory: "512m" means 512 thousandths of a byte; did you mean "512Mi"?'],
  'missing-name.yml': [InvalidPipeline, 6, 'missing-name.yml line 6: steps[1]: name: missing (every step needs a name)'],
  'missing-version.yml': [InvalidPipeline, 1, 'missing-version.yml line 1: version: missing: write "version: 1" at the top'],
  'multiple-documents.yml': [InvalidPipeline, 6, 'multiple-documents.yml line 6: a second YAML document starts here ("---"); a pipeline file holds exactly one document'],
  'no-steps.yml': [InvalidPipeline, 2, 'no-steps.yml line 2: steps: must list at least one step'],
  'non-dns-name.yml': [InvalidPipeline, 3, 'non-dns-name.yml line 3: step "build_app": name: "build_app" must use only lowercase letters, digits and "-", and start and end with a letter or digit (e.g. "build-app")'],
  'secret-env-clash.yml': [InvalidPipeline, 9, 'secret-env-clash.yml line 9: step "deploy": secrets[0].env: "DB_PASSWORD" is also set in env; a variable comes either from env or from a secret, not both'],
  'secret-missing-key.yml': [InvalidPipeline, 7, 'secret-missing-key.yml line 7: step "deploy": secrets[0].key: missing (the key inside the Secret)'],
  'service-bad-image.yml': [InvalidImage, 8, 'service-bad-image.yml line 8: step "test": services[0].image: image "Postgres:16" is not a valid image reference: the repository "Postgres" has uppercase letters; repository names must be lowercase (try "postgres:16")'],
  'service-bad-port.yml': [InvalidPipeline, 5, 'service-bad-port.yml line 5: services[0].ports[1]: 70000 is not a TCP port; ports are 1 to 65535'],
  'service-duplicate-name.yml': [InvalidPipeline, 10, 'service-duplicate-name.yml line 10: step "test": services[0].name: the name "db" is already used by the pipeline\'s services[0]; a step\'s services (the pipeline\'s and its own) need names of their own'],
  'service-reserved-name.yml': [InvalidPipeline, 7, 'service-reserved-name.yml line 7: step "test": services[0].name: "step" is the name of one of the step pod\'s own containers ("step", "clone", "port-N" and "step-runner-..." are taken); rename the service'],
  'service-start-grace-zero.yml': [InvalidPipeline, 2, 'service-start-grace-zero.yml line 2: service-start-grace: "0" is zero; a duration must be more than zero'],
  'service-typo.yml': [InvalidPipeline, 5, 'service-typo.yml line 5: unknown field "port" (did you mean "ports"?)'],
  'steps-not-a-list.yml': [InvalidPipeline, 2, 'steps-not-a-list.yml line 2: steps: must be a list of steps (each starting with "- name:"), not a map'],
  'tab-indentation.yml': [InvalidPipeline, 4, 'tab-indentation.yml line 4: a tab is used for indentation; YAML indents with spaces only'],
  'top-level-typo.yml': [InvalidPipeline, 2, 'top-level-typo.yml line 2: unknown field "image_pull_grace" (did you mean "image-pull-grace"?)'],
  'two-bad-images.yml': [InvalidImage, 4, 'two-bad-images.yml line 4: step "one": image "busybox " is not a valid image reference: it contains leading or trailing whitespace; remove it (image references never contain spaces) (and 1 more problem)'],
  'typo-command.yml': [InvalidPipeline, 5, 'typo-command.yml line 5: step "build": unknown field "command" (did you mean "commands"?)'],
  'typo-key.yml': [InvalidPipeline, 7, 'typo-key.yml line 7: step "build": unknown field "imgae" (did you mean "image"?)'],
  'unknown-key.yml': [InvalidPipeline, 6, 'unknown-key.yml line 6: step "build": unknown field "workdir" (expected one of: name, image, commands, env, pull, timeout, pending-timeout, resources, secrets, image-check, node-selector, tolerations, when, needs, services, cache, artifacts, reports, retry, identity, matrix, fail-fast, approval, build)'],
  'uppercase-name.yml': [InvalidPipeline, 3, 'uppercase-name.yml line 3: step "Build": name: "Build" must use only lowercase letters, digits and "-", and start and end with a letter or digit (e.g. "build")'],
  'wrong-version.yml': [InvalidPipeline, 1, 'wrong-version.yml line 1: version: must be 1 (the only version there is), not the number 2'],
  'yaml-syntax-error.yml': [InvalidPipeline, 6, 'yaml-syntax-error.yml line 6: YAML syntax error: flow sequence in block collection must be sufficiently indented and end with a ]'],
  'zero-timeout.yml': [InvalidPipeline, 6, 'zero-timeout.yml line 6: step "build": timeout: "0" is zero; a duration must be more than zero'],
};

function errorFrom(file: string): unknown {
  try {
    parsePipeline(readFileSync(badDir + file, 'utf8'), file);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('bad pipeline files are rejected with a precise message', () => {
  test('every file in the folder has an expectation, and every expectation a file', () => {
    const files = readdirSync(badDir).filter((file) => file.endsWith('.yml')).sort();
    expect(files.length).toBeGreaterThanOrEqual(20);
    expect(Object.keys(expectations).sort()).toEqual(files);
  });

  test.each(Object.entries(expectations))('%s', (file, [errorClass, line, message]) => {
    const error = errorFrom(file);
    expect(error).toBeInstanceOf(errorClass);
    const { name, location } = error as InvalidPipeline | InvalidImage;
    expect(name).toBe(errorClass.name);
    expect(location?.line).toBe(line);
    expect(location?.file).toBe(file);
    expect((error as Error).message).toBe(message);
  });
});

describe('problems beyond the first', () => {
  test('an image problem next to another problem is thrown as InvalidPipeline and both are listed', () => {
    const error = errorFrom('image-and-other-problems.yml') as InvalidPipeline;
    expect(error.problems.map((p) => [p.location.line, p.location.field])).toEqual([
      [4, 'image'],
      [6, 'pull'],
    ]);
    expect(error.problems[1]?.message).toBe(
      'image-and-other-problems.yml line 6: step "build": pull: must be one of always, if-not-present, never, not the text "sometimes"',
    );
  });

  test('InvalidImage carries the first bad image and where it is written', () => {
    const error = errorFrom('two-bad-images.yml') as InvalidImage;
    expect(error.image).toBe('busybox ');
    expect(error.location).toEqual({ file: 'two-bad-images.yml', step: 'one', field: 'image', line: 4, column: 5 });
  });

  test('a misspelt key does not also report the field it was meant to be as missing', () => {
    const error = errorFrom('typo-key.yml') as InvalidPipeline;
    expect(error.problems).toHaveLength(1);
  });
});
