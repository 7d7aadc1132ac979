/**
 * How each step ended, kept beside its log in S3 (StepLogStore.putResult / results), against an
 * S3 written apart from ours (moto): a later attempt's record replaces an earlier's, a listing
 * longer than a page is read whole, and a build reads only its own.
 */
import { MOTO_CREDENTIALS, MOTO_REGION, motoServerInstalled, startMotoServer, type MotoServer } from '../../test/fixtures/moto-server.js';
import { describeRequiring } from '../../test/fixtures/requirements.js';
import { S3Client } from '@aws-sdk/client-s3';
import { s3LogStore } from './s3-log-store.js';

describeRequiring('step records in S3 (moto)', motoServerInstalled, () => {
  let moto: MotoServer;
  let client: S3Client;
  beforeAll(async () => {
    moto = await startMotoServer();
    client = new S3Client({ endpoint: moto.endpoint, region: MOTO_REGION, forcePathStyle: true, credentials: MOTO_CREDENTIALS });
  });
  afterAll(async () => {
    client?.destroy();
    await moto?.stop();
  });

  const record = (step: string, status: 'succeeded' | 'failed') => ({ step, status, exitCode: status === 'failed' ? 3 : 0, error: status === 'failed' ? 'StepFailed' : null, startedAt: '2026-12-02T06:00:00.000Z', endedAt: '2026-12-02T06:01:00.000Z' });

  it('keeps the last record of each step, beside its log, and lists a build\'s records only', async () => {
    const bucket = await moto.bucket();
    const store = s3LogStore(bucket, 'builds/', client);
    await store.put('b-1', 'test', 'log of test\n');
    await store.putResult('b-1', record('test', 'failed'));
    await store.putResult('b-1', record('test', 'succeeded'));
    await store.putResult('b-1', record('lint', 'failed'));
    await store.putResult('b-10', record('other', 'succeeded'));
    const records = await store.results('b-1');
    expect(records.map((r) => [r.step, r.status]).sort()).toEqual([
      ['lint', 'failed'],
      ['test', 'succeeded'],
    ]);
    expect(await store.results('nothing-yet')).toEqual([]);
  });

  it('reads a build of more steps than one listing page holds', async () => {
    const bucket = await moto.bucket();
    // S3 pages a listing at 1,000 keys; pages of 10 (the request's own MaxKeys, which S3 and moto
    // honour) take the same continuation path for 25 records instead of 1,005 puts to moto.
    const paged = new S3Client({ endpoint: moto.endpoint, region: MOTO_REGION, forcePathStyle: true, credentials: MOTO_CREDENTIALS });
    const pages: number[] = [];
    paged.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'ListObjectsV2Command') return next(args);
        (args.input as { MaxKeys?: number }).MaxKeys = 10;
        const answer = await next(args);
        pages.push(((answer.output as { Contents?: unknown[] }).Contents ?? []).length);
        return answer;
      },
      { step: 'initialize' },
    );
    const store = s3LogStore(bucket, 'builds/', paged);
    const names = Array.from({ length: 25 }, (_, i) => `step-${i}`);
    await Promise.all(names.map((name) => store.putResult('wide', record(name, 'succeeded'))));
    expect((await store.results('wide')).map((r) => r.step).sort()).toEqual([...names].sort());
    expect(pages).toEqual([10, 10, 5]);
    paged.destroy();
  });
});
