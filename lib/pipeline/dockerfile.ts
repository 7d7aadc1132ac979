/**
 * What PrepareBuild needs of a build step's Dockerfile, read before any pod (issue 39): each
 * stage's FROM with the image it names once its build arguments are resolved, and the line of
 * every instruction (a failed one is named by its line: lib/kube/build-result.ts). Pure; not a
 * whole Dockerfile parser, only the rules the reference gives for what is read here
 * (docs.docker.com/reference/dockerfile: "Format", "Parser directives", "escape", "Environment
 * replacement", "Understand how ARG and FROM interact", "FROM"; BuildKit's parser,
 * moby/buildkit frontend/dockerfile/parser):
 * - a line ending with the escape character (`\` unless a `# escape=` directive says `` ` ``)
 *   continues on the next; comment lines (`#` first) and empty lines inside an instruction are
 *   left out of it, and an instruction's line is the line it starts on;
 * - parser directives are `# key=value` comments before anything else;
 * - an `ARG` before the first FROM is in scope for every FROM; `--build-arg` overrides its default;
 * - `FROM [--platform=...] image [AS name]`: a later FROM naming an earlier stage (case does not
 *   matter) builds on that stage, not on an image; `scratch` is no image either;
 * - `$NAME`, `${NAME}`, `${NAME:-word}` and `${NAME:+word}` are replaced in FROM. A reference to an
 *   argument with no value is left to the builder (`unresolved`).
 */

export interface DockerfileFrom {
  /** 1-based line of the FROM. */
  line: number;
  /** The image as written (`$BASE`, `node:${NODE_VERSION}-alpine`). */
  written: string;
  /** The image once the arguments are replaced; absent when it names a stage, `scratch`, or could not be resolved. */
  image?: string;
  /** The earlier stage it builds on. */
  stage?: string;
  /** The argument with no value that kept it from being resolved. */
  unresolved?: string;
  /** Its `AS` name, lower-cased. */
  name?: string;
}

export interface DockerfileStage {
  from: DockerfileFrom;
  /** The line of each of its instructions, its FROM first. */
  instructionLines: number[];
}

export interface DockerfileRead {
  stages: DockerfileStage[];
  /** Why the file could not be read as a Dockerfile (no FROM at all); absent when it could. */
  problem?: string;
}

interface Instruction {
  line: number;
  keyword: string;
  rest: string;
}

const DIRECTIVE = /^#\s*([a-zA-Z][a-zA-Z0-9-]*)\s*=\s*(.*?)\s*$/;

/** The file's instructions, continuation lines joined, each with the line it starts on. */
export function dockerfileInstructions(text: string): Instruction[] {
  const lines = text.split(/\r?\n/);
  let escape = '\\';
  let index = 0;
  // Parser directives: only at the very top, before any comment, blank line or instruction.
  for (; index < lines.length; index++) {
    const directive = DIRECTIVE.exec(lines[index]!.trim());
    if (!directive) break;
    if (directive[1]!.toLowerCase() === 'escape' && (directive[2] === '`' || directive[2] === '\\')) escape = directive[2];
  }
  const instructions: Instruction[] = [];
  let current: { line: number; text: string } | undefined;
  for (; index < lines.length; index++) {
    const raw = lines[index]!;
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) {
      continue;
    }
    const continues = trimmed.endsWith(escape);
    const part = continues ? trimmed.slice(0, -escape.length) : trimmed;
    current = current ? { line: current.line, text: `${current.text} ${part}` } : { line: index + 1, text: part };
    if (continues) continue;
    instructions.push(toInstruction(current));
    current = undefined;
  }
  if (current) instructions.push(toInstruction(current));
  return instructions;
}

function toInstruction({ line, text }: { line: number; text: string }): Instruction {
  const [keyword = '', ...rest] = text.trim().split(/\s+/);
  return { line, keyword: keyword.toUpperCase(), rest: rest.join(' ') };
}

/** `ARG A=1 B="two"` -> [["A","1"],["B","two"]]; `ARG A` -> [["A", undefined]]. */
function argsOf(rest: string): [string, string | undefined][] {
  return (rest.match(/[^\s=]+(?:=(?:"[^"]*"|'[^']*'|\S*))?/g) ?? []).map((word) => {
    const at = word.indexOf('=');
    if (at < 0) return [word, undefined];
    const value = word.slice(at + 1).replace(/^"(.*)"$|^'(.*)'$/, '$1$2');
    return [word.slice(0, at), value];
  });
}

/** Replaces the arguments in `word`; the first argument that has no value, when one has none. */
export function expandArgs(word: string, args: ReadonlyMap<string, string | undefined>): { value: string } | { unresolved: string } {
  let unresolved: string | undefined;
  const value = word.replace(/\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?:(:[-+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g, (_, braced?: string, operator?: string, alternative?: string, bare?: string) => {
    const name = (braced ?? bare)!;
    const given = args.get(name);
    const set = given !== undefined && given !== '';
    if (operator === ':-') return set ? given : (alternative ?? '');
    if (operator === ':+') return set ? (alternative ?? '') : '';
    if (given === undefined) unresolved ??= name;
    return given ?? '';
  });
  return unresolved !== undefined ? { unresolved } : { value };
}

/**
 * The stages of `text`, their FROM images resolved with `buildArgs` over the global ARG defaults.
 * Instructions before the first FROM other than ARG are not the stages' (BuildKit refuses them).
 */
export function readDockerfile(text: string, buildArgs: Readonly<Record<string, string>> = {}): DockerfileRead {
  const instructions = dockerfileInstructions(text);
  const globals = new Map<string, string | undefined>();
  const stages: DockerfileStage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'ARG' && stages.length === 0) {
      for (const [name, value] of argsOf(instruction.rest)) globals.set(name, Object.hasOwn(buildArgs, name) ? buildArgs[name] : value);
      continue;
    }
    if (instruction.keyword === 'FROM') {
      stages.push({ from: fromOf(instruction, globals, stages), instructionLines: [instruction.line] });
      continue;
    }
    stages.at(-1)?.instructionLines.push(instruction.line);
  }
  return stages.length > 0 ? { stages } : { stages, problem: 'it has no FROM instruction' };
}

function fromOf(instruction: Instruction, args: ReadonlyMap<string, string | undefined>, before: readonly DockerfileStage[]): DockerfileFrom {
  const words = instruction.rest.split(/\s+/).filter((word) => word !== '' && !word.startsWith('--'));
  const [written = ''] = words;
  const name = words[1]?.toUpperCase() === 'AS' && words[2] ? words[2].toLowerCase() : undefined;
  const base = { line: instruction.line, written, ...(name ? { name } : {}) };
  const expanded = expandArgs(written, args);
  if ('unresolved' in expanded) return { ...base, unresolved: expanded.unresolved };
  const stage = before.find((s) => s.from.name === expanded.value.toLowerCase());
  if (stage) return { ...base, stage: stage.from.name! };
  if (expanded.value.toLowerCase() === 'scratch') return base;
  return { ...base, image: expanded.value };
}
