/**
 * The node's side of images: which are present, and what one pull attempt yields against the
 * catalog (including the transient failures a catalog entry asks for).
 */
import { digestOf, resolveImage, type CatalogEntry, type ImageCatalog, type ImageReference } from '../../image-catalog.js';
import { notInCatalog, rateLimited, unauthorized, unknownHost } from '../../pull-errors.js';

export type PulledImage = { ok: true; reference: ImageReference; entry: CatalogEntry; size: number; imageID: string };

export type PullOutcome = PulledImage | { ok: false; error: string };

export class ImagePuller {
  private readonly present = new Set<string>();
  private readonly attempts = new Map<CatalogEntry, number>();

  constructor(private readonly catalog: ImageCatalog) {
    for (const [key, entry] of catalog.byReference) if (entry.preloaded) this.present.add(key);
  }

  /** The image as already on the node, without pulling; undefined when it is not present. */
  presentImage(image: string): PulledImage | undefined {
    const resolution = resolveImage(this.catalog, image);
    if (resolution.kind !== 'found' || !this.present.has(resolution.reference.full)) return undefined;
    return this.success(resolution.reference, resolution.entry);
  }

  pull(image: string): PullOutcome {
    const resolution = resolveImage(this.catalog, image);
    switch (resolution.kind) {
      case 'invalid':
        return { ok: false, error: resolution.message };
      case 'unknown-tag':
      case 'unknown-repository':
        return { ok: false, error: notInCatalog(resolution.reference) };
      case 'unknown-registry':
        return { ok: false, error: unknownHost(resolution.reference) };
      case 'found': {
        const { reference, entry } = resolution;
        if (entry.private) return { ok: false, error: unauthorized(reference) };
        const attempt = (this.attempts.get(entry) ?? 0) + 1;
        this.attempts.set(entry, attempt);
        if (entry.failFirstPulls && attempt <= entry.failFirstPulls.count) {
          return { ok: false, error: entry.failFirstPulls.message ?? rateLimited(reference, digestOf(entry, reference)) };
        }
        this.present.add(reference.full);
        return this.success(reference, entry);
      }
    }
  }

  private success(reference: ImageReference, entry: CatalogEntry): PulledImage {
    const repository = `${reference.domain}/${reference.repository}`;
    return { ok: true, reference, entry, size: entry.size ?? 0, imageID: `${repository}@${digestOf(entry, reference)}` };
  }
}
