/**
 * Image references, validated with @swimlane/docker-reference (the port of Docker's own grammar),
 * plus a diagnosis in plain words: the library only says "invalid reference format", which does not
 * tell a user what to change.
 */
import { parseFamiliarName } from '@swimlane/docker-reference';
import { InvalidImage, type PipelineLocation } from './errors.js';

export interface ImageReference {
  /** As written in the pipeline file. */
  original: string;
  /** Registry host (and port): `docker.io`, `ghcr.io`, `localhost:5000`. */
  domain: string;
  /** Path inside the registry: `library/alpine`, `org/team/app`. */
  repository: string;
  tag?: string;
  digest?: string;
  /**
   * The fully qualified name the kubelet pulls, e.g. `docker.io/library/alpine:3.20`; `:latest`
   * is spelled out when neither tag nor digest is given, because that is what gets pulled.
   */
  familiar: string;
}

export type ImageCheck = { ok: true; image: ImageReference } | { ok: false; reason: string };

const NAME_MAX_LENGTH = 255;
const TAG_MAX_LENGTH = 128;
const DIGEST_HEX_LENGTHS: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };
const SHAPE = 'an image reference looks like [registry[:port]/]repository[:tag][@sha256:digest], e.g. alpine:3.20 or ghcr.io/org/app:1.0';

/** Pure: either the normalised reference or, in words a user can act on, why it is not one. */
export function checkImageReference(image: string): ImageCheck {
  const early = diagnoseBeforeParsing(image);
  if (early) return { ok: false, reason: early };
  let parsed;
  try {
    parsed = parseFamiliarName(image);
  } catch (error) {
    return { ok: false, reason: diagnoseAfterParsing(image, error) };
  }
  const domain = parsed.domain ?? '';
  const repository = parsed.repository ?? '';
  const tag = parsed.tag;
  const digest = parsed.digest;
  const familiar =
    `${domain}/${repository}` + (tag ? `:${tag}` : '') + (digest ? `@${digest}` : '') + (!tag && !digest ? ':latest' : '');
  return {
    ok: true,
    image: { original: image, domain, repository, familiar, ...(tag ? { tag } : {}), ...(digest ? { digest } : {}) },
  };
}

/** Throws InvalidImage naming the image, the reason and (when given) where it was written. */
export function parseImageReference(image: string, location?: PipelineLocation): ImageReference {
  const result = checkImageReference(image);
  if (result.ok) return result.image;
  throw new InvalidImage(imageProblemMessage(image, result.reason, location), image, location);
}

/** The wording shared by parseImageReference and the pipeline loader. */
export function imageProblemMessage(image: string, reason: string, location?: PipelineLocation): string {
  const where = location ? locationPrefix(location) : '';
  return `${where}image ${JSON.stringify(image)} is not a valid image reference: ${reason}`;
}

function locationPrefix(location: PipelineLocation): string {
  const file = location.file + (location.line !== undefined ? ` line ${location.line}` : '');
  return `${file}: ${location.step !== undefined ? `step ${JSON.stringify(location.step)}: ` : ''}`;
}

/** Problems that are clear from the text alone, checked first so their wording wins. */
function diagnoseBeforeParsing(image: string): string | undefined {
  if (image.trim() === '') return `it is empty; ${SHAPE}`;
  const space = /\s/.exec(image);
  if (space) {
    const where = image.trim() !== image ? 'leading or trailing whitespace' : `whitespace at position ${space.index + 1}`;
    return `it contains ${where}; remove it (image references never contain spaces)`;
  }
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(image);
  if (scheme) {
    return `remove the "${scheme[0]}" prefix: image references name the registry host without a protocol, e.g. ${image.slice(scheme[0].length)}`;
  }

  const { name, tag, digest, hasTagSeparator, hasDigestSeparator } = splitReference(image);
  if (name.startsWith('/')) return `it starts with "/"; the first part must be a registry host or a repository name`;
  if (name.endsWith('/')) return `the repository name ends with "/"; remove it or add the missing path component`;
  if (name.includes('//')) return `it contains "//" (an empty path component); use single slashes`;

  if (hasDigestSeparator) {
    const digestProblem = diagnoseDigest(digest);
    if (digestProblem) return digestProblem;
  }
  if (hasTagSeparator) {
    if (tag === '') return `the tag after ":" is empty; write ${name}:<tag> (e.g. ${name}:latest) or leave out the ":"`;
    if (tag.length > TAG_MAX_LENGTH) return `the tag is ${tag.length} characters long; at most ${TAG_MAX_LENGTH} are allowed`;
    if (!/^[\w][\w.-]*$/.test(tag)) {
      return `the tag "${tag}" may contain only letters, digits, "_", "." and "-", and must not start with "." or "-"`;
    }
  }

  const { path } = splitDomain(name);
  if (path !== path.toLowerCase()) {
    return `the repository "${path}" has uppercase letters; repository names must be lowercase (try ${JSON.stringify(lowercaseRepository(image))})`;
  }
  if (qualifiedLength(name) > NAME_MAX_LENGTH) {
    return `the name is too long (${qualifiedLength(name)} characters with its registry); at most ${NAME_MAX_LENGTH} are allowed`;
  }
  return undefined;
}

function diagnoseAfterParsing(image: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/^[a-f0-9]{64}$/.test(image)) {
    return 'a bare 64-character hex string is an image ID, not a reference; use repository@sha256:<hex> instead';
  }
  const { name } = splitReference(image);
  const { domain, path } = splitDomain(name);
  const badComponent = path.split('/').find((part) => !/^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/.test(part));
  if (badComponent !== undefined) {
    return `the repository path part "${badComponent}" may contain only lowercase letters and digits, separated by ".", "_", "__" or "-"`;
  }
  if (domain !== undefined && !/^[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]+)?$/.test(domain)) {
    return `the registry host "${domain}" is not a valid host name with an optional numeric port`;
  }
  return `${message}; ${SHAPE}`;
}

function diagnoseDigest(digest: string): string | undefined {
  if (digest === '') return 'the digest after "@" is empty; write @sha256:<64 hex characters> or leave out the "@"';
  const colon = digest.indexOf(':');
  if (colon < 0) return `the digest "${digest}" has no algorithm; write it as sha256:<64 hex characters>`;
  const algorithm = digest.slice(0, colon);
  const hex = digest.slice(colon + 1);
  const expected = DIGEST_HEX_LENGTHS[algorithm];
  if (expected === undefined) {
    return `the digest algorithm "${algorithm}" is not supported; use sha256, sha384 or sha512`;
  }
  if (!/^[a-fA-F0-9]*$/.test(hex)) return `the ${algorithm} digest may contain only hexadecimal characters (0-9, a-f)`;
  if (hex.length !== expected) {
    return `a ${algorithm} digest has ${expected} hex characters, this one has ${hex.length}`;
  }
  return undefined;
}

/** name[:tag][@digest], splitting the way Docker does: a ":" after the last "/" starts the tag. */
function splitReference(image: string) {
  const at = image.indexOf('@');
  const hasDigestSeparator = at >= 0;
  const beforeDigest = hasDigestSeparator ? image.slice(0, at) : image;
  const digest = hasDigestSeparator ? image.slice(at + 1) : '';
  const colon = beforeDigest.lastIndexOf(':');
  const hasTagSeparator = colon > beforeDigest.lastIndexOf('/');
  return {
    name: hasTagSeparator ? beforeDigest.slice(0, colon) : beforeDigest,
    tag: hasTagSeparator ? beforeDigest.slice(colon + 1) : '',
    digest,
    hasTagSeparator,
    hasDigestSeparator,
  };
}

/** Docker's rule: the first component is a registry when it has a "." or ":" or is "localhost". */
function splitDomain(name: string): { domain?: string; path: string } {
  const slash = name.indexOf('/');
  if (slash < 0) return { path: name };
  const first = name.slice(0, slash);
  if (first.includes('.') || first.includes(':') || first === 'localhost') {
    return { domain: first, path: name.slice(slash + 1) };
  }
  return { path: name };
}

function qualifiedLength(name: string): number {
  const { domain, path } = splitDomain(name);
  if (domain !== undefined) return name.length;
  return `docker.io/${path.includes('/') ? '' : 'library/'}${path}`.length;
}

function lowercaseRepository(image: string): string {
  const { name } = splitReference(image);
  const { domain, path } = splitDomain(name);
  const fixed = domain !== undefined ? `${domain}/${path.toLowerCase()}` : path.toLowerCase();
  return fixed + image.slice(name.length);
}
