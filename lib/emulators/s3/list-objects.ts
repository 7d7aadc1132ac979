/** ListObjectsV2 over a sorted listing: the page its parameters select, and the XML S3 answers. */
import type { ObjectInfo } from './object-store.js';
import { compareKeys } from './object-store.js';
import { s3Errors } from './s3-errors.js';
import { escapeXml } from './xml.js';

export interface ListParameters {
  prefix: string;
  delimiter?: string;
  maxKeys: number;
  continuationToken?: string;
  startAfter?: string;
  urlEncoded: boolean;
}

export interface ListPage {
  contents: ObjectInfo[];
  commonPrefixes: string[];
  isTruncated: boolean;
  nextContinuationToken?: string;
}

const MAX_KEYS = 1000;

/** The query's list parameters, checked as S3 checks them. */
export function listParameters(query: URLSearchParams): ListParameters {
  const maxKeysText = query.get('max-keys');
  const maxKeys = maxKeysText === null ? MAX_KEYS : /^\d+$/.test(maxKeysText) ? Math.min(Number(maxKeysText), MAX_KEYS) : NaN;
  if (Number.isNaN(maxKeys)) throw s3Errors.invalidArgument('Provided max-keys not an integer or within integer range');
  const encoding = query.get('encoding-type');
  if (encoding !== null && encoding !== 'url') throw s3Errors.invalidArgument('Invalid Encoding Method specified in Request');
  const optional = (name: string) => query.get(name) ?? undefined;
  const parameters: ListParameters = { prefix: query.get('prefix') ?? '', maxKeys, urlEncoded: encoding === 'url' };
  for (const [field, name] of [['delimiter', 'delimiter'], ['continuationToken', 'continuation-token'], ['startAfter', 'start-after']] as const) {
    const value = optional(name);
    if (value !== undefined && value !== '') parameters[field] = value;
  }
  return parameters;
}

/** The token is the last key of the page before, so it stays valid while objects come and go. */
function keyOfToken(token: string): string {
  const key = Buffer.from(token, 'base64url').toString('utf8');
  if (Buffer.from(key, 'utf8').toString('base64url') !== token) throw s3Errors.invalidArgument('The continuation token provided is incorrect');
  return key;
}

export function listPage(objects: readonly ObjectInfo[], parameters: ListParameters): ListPage {
  const after = parameters.continuationToken !== undefined ? keyOfToken(parameters.continuationToken) : parameters.startAfter;
  const contents: ObjectInfo[] = [];
  const commonPrefixes: string[] = [];
  let last: string | undefined;
  let isTruncated = false;
  for (const object of objects) {
    if (!object.key.startsWith(parameters.prefix)) continue;
    if (after !== undefined && compareKeys(object.key, after) <= 0) continue;
    const { delimiter } = parameters;
    const cut = delimiter === undefined ? -1 : object.key.indexOf(delimiter, parameters.prefix.length);
    const rolledUp = cut >= 0 ? object.key.slice(0, cut + delimiter!.length) : undefined;
    if (rolledUp !== undefined && commonPrefixes.at(-1) === rolledUp) continue;
    if (contents.length + commonPrefixes.length >= parameters.maxKeys) {
      isTruncated = true;
      break;
    }
    if (rolledUp !== undefined) {
      commonPrefixes.push(rolledUp);
      // Resume past every key under the rolled-up prefix, not inside it.
      last = `${rolledUp}\u{10FFFF}`;
    } else {
      contents.push(object);
      last = object.key;
    }
  }
  const page: ListPage = { contents, commonPrefixes, isTruncated };
  if (isTruncated && last !== undefined) page.nextContinuationToken = Buffer.from(last, 'utf8').toString('base64url');
  return page;
}

export function listPageXml(bucket: string, parameters: ListParameters, page: ListPage): string {
  const text = (value: string) => escapeXml(parameters.urlEncoded ? encodeURIComponent(value) : value);
  const element = (name: string, value: string | number | boolean | undefined) => (value === undefined ? '' : `<${name}>${typeof value === 'string' ? text(value) : String(value)}</${name}>`);
  const contents = page.contents
    .map(
      (object) =>
        `<Contents><Key>${text(object.key)}</Key><LastModified>${new Date(object.lastModified).toISOString()}</LastModified><ETag>${escapeXml(object.etag)}</ETag><Size>${object.size}</Size><StorageClass>STANDARD</StorageClass></Contents>`,
    )
    .join('');
  const prefixes = page.commonPrefixes.map((prefix) => `<CommonPrefixes><Prefix>${text(prefix)}</Prefix></CommonPrefixes>`).join('');
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` +
    `<Name>${escapeXml(bucket)}</Name>${element('Prefix', parameters.prefix)}${element('Delimiter', parameters.delimiter)}<MaxKeys>${parameters.maxKeys}</MaxKeys>` +
    `${parameters.urlEncoded ? '<EncodingType>url</EncodingType>' : ''}<KeyCount>${page.contents.length + page.commonPrefixes.length}</KeyCount>` +
    `<IsTruncated>${page.isTruncated}</IsTruncated>${element('ContinuationToken', parameters.continuationToken)}` +
    `${element('NextContinuationToken', page.nextContinuationToken)}${element('StartAfter', parameters.startAfter)}${contents}${prefixes}</ListBucketResult>`
  );
}
