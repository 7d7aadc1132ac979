/**
 * The command line a container runs, by the container runtime's rule: `command` replaces the
 * image's entrypoint and, unless `args` are given, drops the image's cmd too; `args` alone replace
 * the image's cmd and keep its entrypoint. And the kubelet's `$(VAR)` expansion, which command,
 * args and env values share.
 */
import type { Container } from './objects.js';
import type { ImageConfig } from './runtime/container-runtime.js';

export function containerArgv(container: Pick<Container, 'command' | 'args'>, image: Pick<ImageConfig, 'entrypoint' | 'cmd'>): string[] {
  return [
    ...(container.command ?? image.entrypoint ?? []),
    ...(container.args ?? (container.command ? [] : (image.cmd ?? []))),
  ];
}

/**
 * Kubernetes' expansion: `$(NAME)` becomes the variable's value when it is defined and stays as
 * written when not; `$$` is a literal `$` (so `$$(NAME)` is never expanded); any other `$` is kept.
 */
export function expandReferences(input: string, variables: Readonly<Record<string, string>>): string {
  let out = '';
  for (let i = 0; i < input.length; i += 1) {
    const char = input[i];
    const next = input[i + 1];
    if (char !== '$' || next === undefined) {
      out += char;
    } else if (next === '$') {
      out += '$';
      i += 1;
    } else if (next === '(' && input.indexOf(')', i + 2) !== -1) {
      const close = input.indexOf(')', i + 2);
      const name = input.slice(i + 2, close);
      out += Object.hasOwn(variables, name) ? variables[name] : `$(${name})`;
      i = close;
    } else {
      out += char;
    }
  }
  return out;
}
