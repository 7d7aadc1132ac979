/** Another CI's job names as step names: DNS-1123 labels (docs/pipeline.md), unique, never `clone`. */
import { CHECKOUT_STEP, RESERVED_SERVICE_NAMES } from '../pipeline/index.js';

const MAX = 63;

/** `rspec:ruby2.2` -> `rspec-ruby2-2`; empty or all symbols -> `step`. */
export function labelOf(raw: string, fallback = 'step'): string {
  const label = raw
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX)
    .replace(/-+$/, '');
  return label === '' ? fallback : label;
}

/** Gives each raw name a label of its own, in order: a second `build` is `build-2`. */
export function uniqueLabels(raws: readonly string[], reserved: readonly string[] = [CHECKOUT_STEP]): Map<string, string> {
  const taken = new Set(reserved);
  const labels = new Map<string, string>();
  for (const raw of raws) {
    const base = labelOf(raw);
    let label = base;
    for (let n = 2; taken.has(label); n++) label = `${base.slice(0, MAX - String(n).length - 1)}-${n}`;
    taken.add(label);
    labels.set(raw, label);
  }
  return labels;
}

/** A step's services named apart from each other and from the pod's own containers (lib/pipeline/services.ts). */
export function uniqueServiceNames<T extends { name: string }>(services: readonly T[]): T[] {
  const taken = new Set<string>(RESERVED_SERVICE_NAMES);
  return services.map((service) => {
    const base = /^port-\d+$/.test(service.name) ? `service-${service.name}` : labelOf(service.name, 'service');
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base.slice(0, MAX - String(n).length - 1)}-${n}`;
    taken.add(name);
    return { ...service, name };
  });
}
