/**
 * What `step-runner import` makes of another CI's file before it is written: a draft of the
 * pipeline in the file's own spelling (docs/pipeline.md), and every part it could not convert.
 */

/** One part of the source file that the written pipeline does not do, and what to do instead. */
export interface Unconverted {
  /** 1-based line in the source file. */
  line: number;
  /** The part, as the source spells it (`uses: codecov/codecov-action@v4`). */
  what: string;
  /** What to write or do instead, for a person to act on. */
  instead: string;
}

/** A step's `when`, as the pipeline file spells it. */
export interface DraftWhen {
  branch?: string[];
  event?: string[];
  status?: string[];
  paths?: string[];
  'paths-ignore'?: string[];
}

export interface DraftService {
  name: string;
  image: string;
  env?: Record<string, string>;
  ports?: number[];
  secrets?: DraftSecret[];
}

export interface DraftCache {
  key: { files?: string[]; prefix?: string };
  paths: string[];
  'fallback-keys'?: string[];
  policy?: string;
}

export interface DraftSecret {
  env: string;
  secret: string;
  key: string;
}

/** A step's `matrix:` (docs/pipeline.md#matrices): axes, and `include` / `exclude` entries. */
export type DraftMatrix = Record<string, string[] | Record<string, string>[]>;

export interface DraftStep {
  name: string;
  image: string;
  commands: string[];
  matrix?: DraftMatrix;
  'fail-fast'?: boolean;
  env?: Record<string, string>;
  secrets?: DraftSecret[];
  services?: DraftService[];
  cache?: DraftCache[];
  artifacts?: { paths: string[]; 'expire-in'?: string };
  reports?: { junit: string[] };
  needs?: string[];
  when?: DraftWhen;
  timeout?: string;
  retry?: { max: number; on: string[] };
  /** Where the step came from (`job "test", line 9`), written above it. */
  origin: string;
  /** What of this job was not converted: listed, and written as comments above the step. */
  unconverted: Unconverted[];
  /** Other lines worth a comment above the step (a choice the converter made), not problems. */
  notes: string[];
}

export interface DraftPipeline {
  checkout?: false | { depth: number; submodules?: boolean };
  when?: { paths?: string[]; 'paths-ignore'?: string[] };
  steps: DraftStep[];
  /**
   * The file's own variables, in every step's `env` unless the step changes one: written once, on
   * the first such step, and merged into the others (`<<: *variables`).
   */
  sharedEnv?: Record<string, string>;
  /** What of the file as a whole was not converted (an `include:`, a trigger): at the top of the file. */
  unconverted: Unconverted[];
  notes: string[];
}

export const Dialects = { github: 'GitHub Actions workflow', gitlab: 'GitLab CI file' } as const;
export type Dialect = keyof typeof Dialects;

/** What the conversion gives: the pipeline file's text, and everything it could not convert, by line. */
export interface ImportResult {
  dialect: Dialect;
  yaml: string;
  unconverted: Unconverted[];
}

/** The source file cannot be read as either dialect: its message names the file and the line. */
export class UnreadableCiFile extends Error {
  override readonly name = 'UnreadableCiFile';
}
