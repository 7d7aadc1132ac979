/**
 * A workflow's `on:` (docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#on)
 * as the `when` every step gets. step-runner builds on GitHub's push and pull_request webhooks
 * (a pull request when it is opened, synchronized or reopened), a tag push, and generic deliveries.
 */
import { mapOf, textsOf, type SourceFile } from './source.js';
import type { DraftWhen, Unconverted } from './types.js';

export interface Triggers {
  /** Branch and event, for every step. */
  when: DraftWhen;
  /** Changed files, for the pipeline's own `when`. */
  paths: { paths?: string[]; 'paths-ignore'?: string[] };
  unconverted: Unconverted[];
  notes: string[];
}

const BUILT_PULL_REQUEST_TYPES = ['opened', 'synchronize', 'reopened'];
const MANUAL = ['workflow_dispatch', 'repository_dispatch', 'workflow_call'];

/** `on` as given: a name, a list of names, or a map of name to settings. */
function eventsOf(on: unknown): Map<string, Record<string, unknown>> {
  if (typeof on === 'string') return new Map([[on, {}]]);
  if (Array.isArray(on)) return new Map(textsOf(on).map((name) => [name, {}]));
  return new Map(Object.entries(mapOf(on)).map(([name, settings]) => [name, mapOf(settings)]));
}

const sameList = (a: readonly string[] | undefined, b: readonly string[] | undefined) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

export function triggersOf(source: SourceFile): Triggers {
  // YAML 1.1 reads an unquoted `on` as true; the yaml package (1.2) keeps it as "on".
  const onKey = 'on' in source.data ? 'on' : 'true';
  const events = eventsOf(source.data[onKey]);
  const unconverted: Unconverted[] = [];
  const notes: string[] = [];
  const line = (...path: (string | number)[]) => source.lineOf([onKey, ...path]);
  const built: string[] = [];
  const branchFilters = new Map<string, string[] | undefined>();
  const pathFilters = new Map<string, { paths?: string[]; 'paths-ignore'?: string[] }>();

  for (const [event, settings] of events) {
    if (event === 'push' || event === 'pull_request' || event === 'pull_request_target') {
      const kind = event === 'push' ? 'push' : 'pull_request';
      const branches = settings.branches === undefined ? undefined : textsOf(settings.branches);
      const tags = settings.tags === undefined ? undefined : textsOf(settings.tags);
      // A push with only `tags` builds no branch; with neither filter it builds both.
      if (kind === 'push' && tags !== undefined) built.push('tag');
      if (kind === 'push' && branches === undefined && tags === undefined) built.push('push', 'tag');
      else if (kind === 'push' && branches !== undefined) built.push('push');
      if (kind === 'pull_request') built.push('pull_request');
      if (kind === 'push' && tags !== undefined && branches === undefined) branchFilters.set('tag', undefined);
      else branchFilters.set(kind, branches);
      if (tags !== undefined && !tags.every((tag) => tag === '*' || tag === '**')) {
        unconverted.push({ line: line(event, 'tags'), what: `on.${event}.tags ${JSON.stringify(tags)}`, instead: 'every tag builds (`when: {event: [tag]}` has no tag name filter): test the tag in the step, e.g. `case "$CI_REF" in refs/tags/v*) ...; esac`' });
      }
      for (const key of ['branches-ignore', 'tags-ignore'] as const) {
        if (settings[key] !== undefined) unconverted.push({ line: line(event, key), what: `on.${event}.${key}`, instead: '`when.branch` lists the branches that build, not those that do not: list them' });
      }
      if (event === 'pull_request_target') notes.push(`on.pull_request_target (line ${line(event)}) is written as pull_request: a build here runs the pull request's own commit, where GitHub runs the base branch's workflow`);
      const types = settings.types === undefined ? undefined : textsOf(settings.types);
      if (types !== undefined && !sameList([...types].sort(), [...BUILT_PULL_REQUEST_TYPES].sort())) {
        const extra = types.filter((type) => !BUILT_PULL_REQUEST_TYPES.includes(type));
        const what = `on.${event}.types ${JSON.stringify(types)}`;
        const instead = `a pull request builds when it is opened, synchronized or reopened${extra.length > 0 ? `; ${extra.join(', ')} start no build here` : ''}`;
        unconverted.push({ line: line(event, 'types'), what, instead });
      }
      const filter = {
        ...(settings.paths !== undefined ? { paths: textsOf(settings.paths) } : {}),
        ...(settings['paths-ignore'] !== undefined ? { 'paths-ignore': textsOf(settings['paths-ignore']) } : {}),
      };
      pathFilters.set(event, filter);
    } else if (MANUAL.includes(event)) {
      built.push('generic');
      notes.push(`on.${event} (line ${line(event)}): a build started by hand is \`step-runner run\` here, or a generic delivery (POST /webhook/generic)`);
      if (Object.keys(settings).length > 0) unconverted.push({ line: line(event), what: `on.${event} with settings (inputs)`, instead: 'give values as variables instead: `run --env NAME=VALUE`, or a generic delivery\'s `variables`' });
    } else {
      unconverted.push({ line: line(event), what: `on: ${event}`, instead: event === 'schedule' ? 'send a generic delivery (POST /webhook/generic) from a scheduler, e.g. an EventBridge schedule' : `step-runner builds on push, pull_request, tag pushes and generic deliveries: send a generic delivery when ${event} happens` });
    }
  }

  const when: DraftWhen = {};
  const eventSet = [...new Set(built)];
  const everyEvent = ['push', 'pull_request', 'tag'].every((event) => eventSet.includes(event));
  if (!everyEvent && eventSet.length > 0) when.event = eventSet;

  const filters = [...branchFilters.entries()];
  const filtered = filters.filter(([, branches]) => branches !== undefined);
  if (filtered.length > 0) {
    const [[, first]] = filtered as [[string, string[]]];
    if (filtered.length === filters.length && filtered.every(([, branches]) => sameList(branches, first))) when.branch = first;
    else {
      for (const [kind, branches] of filtered) {
        const key = kind === 'push' ? 'push' : [...events.keys()].find((name) => name.startsWith('pull_request')) ?? 'pull_request';
        unconverted.push({
          line: line(key, 'branches'),
          what: `on.${key}.branches ${JSON.stringify(branches)}`,
          instead: `a step's \`when\` holds its branch and event together, so a branch for ${kind} alone cannot be said beside the other events: written without it (every branch builds); to keep it, copy each step with \`when: {event: [${kind}], branch: ${JSON.stringify(branches)}}\` and give the copies for the other events their own \`when.event\``,
        });
      }
    }
  }

  const pathSets = [...pathFilters.values()];
  const [firstPaths] = pathSets;
  let paths: Triggers['paths'] = {};
  if (firstPaths && Object.keys(firstPaths).length > 0) {
    if (pathSets.every((set) => JSON.stringify(set) === JSON.stringify(firstPaths))) paths = firstPaths;
    else {
      for (const [event, set] of pathFilters) {
        if (Object.keys(set).length > 0) unconverted.push({ line: line(event, Object.keys(set)[0]!), what: `on.${event}.${Object.keys(set).join('/')}`, instead: 'the changed files are one filter for every event here (`when.paths` at the top, or a step\'s): written without it' });
      }
    }
  }
  return { when, paths, unconverted, notes };
}
