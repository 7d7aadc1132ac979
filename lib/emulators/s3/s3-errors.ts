/**
 * Errors worded as S3 words them: clients (the SDK's error names, people reading curl's output)
 * match on the Code and the HTTP status, so both follow S3's documented pairs.
 */
import { escapeXml } from './xml.js';

export class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Extra elements S3 adds to the <Error> (Key, BucketName, StringToSign...). */
    readonly details: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'S3Error';
  }

  toXml(requestId: string): string {
    const extra = Object.entries(this.details)
      .map(([name, value]) => `<${name}>${escapeXml(value)}</${name}>`)
      .join('');
    return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${this.code}</Code><Message>${escapeXml(this.message)}</Message>${extra}<RequestId>${requestId}</RequestId></Error>`;
  }
}

export const s3Errors = {
  noSuchKey: (key: string) => new S3Error(404, 'NoSuchKey', 'The specified key does not exist.', { Key: key }),
  noSuchBucket: (bucket: string) => new S3Error(404, 'NoSuchBucket', 'The specified bucket does not exist', { BucketName: bucket }),
  preconditionFailed: (condition: 'If-None-Match' | 'If-Match' = 'If-None-Match') =>
    new S3Error(412, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', { Condition: condition }),
  accessDenied: (message = 'Access Denied') => new S3Error(403, 'AccessDenied', message),
  invalidAccessKeyId: (accessKeyId: string) =>
    new S3Error(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.', { AWSAccessKeyId: accessKeyId }),
  signatureDoesNotMatch: (stringToSign: string, canonicalRequest: string) =>
    new S3Error(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your key and signing method.', {
      StringToSign: stringToSign,
      CanonicalRequest: canonicalRequest,
    }),
  // S3's error codes (API reference, "Error responses"): ExpiredToken and InvalidToken, both 400.
  expiredToken: () => new S3Error(400, 'ExpiredToken', 'The provided token has expired.'),
  invalidToken: () => new S3Error(400, 'InvalidToken', 'The provided token is malformed or otherwise invalid.'),
  requestTimeTooSkewed: () => new S3Error(403, 'RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.'),
  authorizationHeaderMalformed: (message: string) => new S3Error(400, 'AuthorizationHeaderMalformed', message),
  authorizationQueryParametersError: (message: string) => new S3Error(400, 'AuthorizationQueryParametersError', message),
  invalidArgument: (message: string) => new S3Error(400, 'InvalidArgument', message),
  invalidRequest: (message: string) => new S3Error(400, 'InvalidRequest', message),
  malformedXml: () => new S3Error(400, 'MalformedXML', 'The XML you provided was not well-formed or did not validate against our published schema'),
  invalidBucketName: (bucket: string) => new S3Error(400, 'InvalidBucketName', 'The specified bucket is not valid.', { BucketName: bucket }),
  contentSha256Mismatch: () => new S3Error(400, 'XAmzContentSHA256Mismatch', "The provided 'x-amz-content-sha256' header does not match what was computed."),
  badDigest: (algorithm: string) => new S3Error(400, 'BadDigest', `The ${algorithm.toUpperCase()} you specified did not match the calculated checksum.`),
  incompleteBody: () => new S3Error(400, 'IncompleteBody', 'You did not provide the number of bytes specified by the Content-Length HTTP header.'),
  invalidRange: () => new S3Error(416, 'InvalidRange', 'The requested range is not satisfiable'),
  methodNotAllowed: () => new S3Error(405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.'),
  notImplemented: (what: string) => new S3Error(501, 'NotImplemented', `The local S3 server does not implement ${what}.`),
} as const;
