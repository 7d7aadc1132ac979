/**
 * The command line a container runs, by the container runtime's rule: `command` replaces the
 * image's entrypoint and, unless `args` are given, drops the image's cmd too; `args` alone replace
 * the image's cmd and keep its entrypoint.
 */
import type { CatalogEntry } from './image-catalog.js';
import type { Container } from './objects.js';

export function containerArgv(
  container: Pick<Container, 'command' | 'args'>,
  image: Pick<CatalogEntry, 'entrypoint' | 'cmd'>,
): string[] {
  return [
    ...(container.command ?? image.entrypoint ?? []),
    ...(container.args ?? (container.command ? [] : (image.cmd ?? []))),
  ];
}
