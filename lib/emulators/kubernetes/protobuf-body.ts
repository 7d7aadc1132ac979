/**
 * Reads the protobuf bodies kubectl's typed commands send (`kubectl create secret|namespace`):
 * the `k8s\0` envelope around a runtime.Unknown, then the object in the field numbers of
 * k8s.io/api's generated.proto. Only Secret and Namespace are understood; other kinds get 415.
 */
import { ApiError } from './api-errors.js';
import type { KubeObject } from './objects.js';

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

type Field = { number: number; wire: number; value: bigint | Buffer };

function readVarint(buffer: Buffer, offset: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (let i = offset; i < buffer.length; i += 1) {
    const byte = buffer[i] ?? 0;
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [result, i + 1];
    shift += 7n;
  }
  throw new Error('truncated varint');
}

function fields(buffer: Buffer): Field[] {
  const out: Field[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    const [key, afterKey] = readVarint(buffer, offset);
    const number = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === 0) {
      const [value, next] = readVarint(buffer, afterKey);
      out.push({ number, wire, value });
      offset = next;
    } else if (wire === 2) {
      const [length, start] = readVarint(buffer, afterKey);
      const end = start + Number(length);
      out.push({ number, wire, value: buffer.subarray(start, end) });
      offset = end;
    } else if (wire === 1 || wire === 5) {
      offset = afterKey + (wire === 1 ? 8 : 4);
    } else {
      throw new Error(`unsupported wire type ${wire}`);
    }
  }
  return out;
}

const bytesOf = (f: Field) => (Buffer.isBuffer(f.value) ? f.value : Buffer.alloc(0));
const text = (f: Field) => bytesOf(f).toString('utf8');
/** Go's protobuf writes empty strings; the JSON form omits them, so absent and empty are the same. */
const optional = (f: Field) => text(f) || undefined;

function mapEntry(f: Field): [string, Buffer] {
  const entry = fields(bytesOf(f));
  const key = entry.find((e) => e.number === 1);
  const value = entry.find((e) => e.number === 2);
  return [key ? text(key) : '', value ? bytesOf(value) : Buffer.alloc(0)];
}

function objectMeta(buffer: Buffer): KubeObject['metadata'] {
  const meta: KubeObject['metadata'] = {};
  for (const f of fields(buffer)) {
    if (f.number === 1) meta.name = optional(f);
    else if (f.number === 2) meta.generateName = optional(f);
    else if (f.number === 3) meta.namespace = optional(f);
    else if (f.number === 11 || f.number === 12) {
      const [key, value] = mapEntry(f);
      const target = f.number === 11 ? (meta.labels ??= {}) : (meta.annotations ??= {});
      target[key] = value.toString('utf8');
    }
  }
  return meta;
}

function secret(raw: Buffer): KubeObject {
  const object: KubeObject = { kind: 'Secret', apiVersion: 'v1', metadata: {} };
  const data: Record<string, string> = {};
  const stringData: Record<string, string> = {};
  for (const f of fields(raw)) {
    if (f.number === 1) object.metadata = objectMeta(bytesOf(f));
    else if (f.number === 2) {
      const [key, value] = mapEntry(f);
      data[key] = value.toString('base64');
    } else if (f.number === 3) object.type = optional(f);
    else if (f.number === 4) {
      const [key, value] = mapEntry(f);
      stringData[key] = value.toString('utf8');
    } else if (f.number === 5) object.immutable = f.value !== 0n;
  }
  if (Object.keys(data).length > 0) object.data = data;
  if (Object.keys(stringData).length > 0) object.stringData = stringData;
  return object;
}

function namespace(raw: Buffer): KubeObject {
  const meta = fields(raw).find((f) => f.number === 1);
  return { kind: 'Namespace', apiVersion: 'v1', metadata: meta ? objectMeta(bytesOf(meta)) : {} };
}

const DECODERS: Record<string, (raw: Buffer) => KubeObject> = { Secret: secret, Namespace: namespace };

export function decodeProtobufObject(body: Buffer): KubeObject {
  const unsupported = (kind: string) =>
    new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json (protobuf is read for Secret and Namespace only, not ${kind})`);
  if (!body.subarray(0, 4).equals(MAGIC)) throw unsupported('this body');
  try {
    const unknown = fields(body.subarray(4));
    const typeMeta = unknown.find((f) => f.number === 1);
    const raw = unknown.find((f) => f.number === 2);
    const kind = fields(typeMeta ? bytesOf(typeMeta) : Buffer.alloc(0)).find((f) => f.number === 2);
    const kindName = kind ? text(kind) : '';
    const decode = DECODERS[kindName];
    if (decode === undefined || raw === undefined) throw unsupported(kindName || 'an unknown kind');
    return decode(bytesOf(raw));
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError(400, 'BadRequest', `unable to decode protobuf body: ${(error as Error).message}`);
  }
}
