/**
 * A step's artifacts against an S3 server (moto): LaunchStep's plan presigns plain PUTs that
 * upload, FinishStep's read of the manifest lists what was kept (only the step's own objects),
 * and the store gives the bytes back for a download.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { MOTO_CREDENTIALS, MOTO_REGION, motoServerInstalled, startMotoServer, type MotoServer } from '../../test/fixtures/moto-server.js';
import { describeRequiring } from '../../test/fixtures/requirements.js';
import { keptArtifacts } from './kept-artifacts.js';
import { s3CacheStore } from './s3-cache-store.js';
import { planStepArtifacts } from './step-artifacts.js';

const step = { name: 'build', timeoutSeconds: 600, artifacts: { paths: ['dist/', 'coverage/lcov.info'], expireInDays: 7 } };
const build = { id: 'b-1', repository: 'octo/app' };
const folder = 'artifacts/7d/octo%2Fapp/b-1/build/';

function recordingLog() {
  const lines: string[] = [];
  return { lines, log: { info: (line: string) => void lines.push(line), warn: (line: string) => void lines.push(`WARN ${line}`) } };
}

describeRequiring('artifacts planned and read against an S3 server (moto)', motoServerInstalled, () => {
  let moto: MotoServer;
  let client: S3Client;
  beforeAll(async () => {
    moto = await startMotoServer();
    client = new S3Client({ endpoint: moto.endpoint, region: MOTO_REGION, forcePathStyle: true, credentials: MOTO_CREDENTIALS, requestChecksumCalculation: 'WHEN_REQUIRED' });
  });
  afterAll(async () => {
    client?.destroy();
    await moto?.stop();
  });

  it('presigns a PUT per form of each path and the manifest; what the pod PUTs is listed and downloads as it was', async () => {
    const bucket = await moto.bucket();
    const store = s3CacheStore(bucket, 'builds/', client);
    const plan = (await planStepArtifacts({ step, build, store }))!;
    expect(plan.artifacts).toEqual({
      paths: [
        { path: 'dist/', secretKey: 'ARTIFACT_0_DIR', object: `${folder}0-dist.tar.gz` },
        { path: 'coverage/lcov.info', secretKey: 'ARTIFACT_1', object: `${folder}1-coverage_lcov.info`, folder: { secretKey: 'ARTIFACT_1_DIR', object: `${folder}1-coverage_lcov.info.tar.gz` } },
      ],
      manifest: { secretKey: 'ARTIFACT_MANIFEST' },
    });
    expect(Object.keys(plan.urls).sort()).toEqual(['ARTIFACT_0_DIR', 'ARTIFACT_1', 'ARTIFACT_1_DIR', 'ARTIFACT_MANIFEST']);
    expect(plan.note).toBe('artifacts (dist/, coverage/lcov.info): kept once the commands end, whether they succeed or fail, for 7 days');

    const coverage = Buffer.from('TN:\n');
    // Twice: a retried upload (curl's --retry) overwrites, as the build's own key may.
    for (let i = 0; i < 2; i++) expect((await fetch(plan.urls['ARTIFACT_1']!, { method: 'PUT', body: coverage })).status).toBe(200);
    const manifest = {
      artifacts: [
        { path: 'coverage/lcov.info', object: `${folder}1-coverage_lcov.info`, size: 4, sha256: 'b'.repeat(64) },
        // Not the step's: dropped.
        { path: 'x', object: 'cache/elsewhere', size: 1, sha256: 'c'.repeat(64) },
      ],
      missing: ['dist/'],
    };
    expect((await fetch(plan.urls['ARTIFACT_MANIFEST']!, { method: 'PUT', body: JSON.stringify(manifest) })).status).toBe(200);

    const { lines, log } = recordingLog();
    expect(await keptArtifacts({ step, build }, store, log)).toEqual([{ path: 'coverage/lcov.info', size: 4, sha256: 'b'.repeat(64), location: `s3://${bucket}/${folder}1-coverage_lcov.info` }]);
    expect(lines).toEqual(['Step "build": artifacts not there when its commands ended: dist/']);

    const object = (await store.download(`${folder}1-coverage_lcov.info`))!;
    const chunks: Buffer[] = [];
    for await (const chunk of object.body) chunks.push(Buffer.from(chunk));
    expect({ bytes: Buffer.concat(chunks), size: object.size }).toEqual({ bytes: coverage, size: 4 });
    expect(await store.download(`${folder}nothing`)).toBeUndefined();
  });

  it('lists nothing, and says why, when the pod wrote no manifest or one that is not', async () => {
    const bucket = await moto.bucket();
    const store = s3CacheStore(bucket, 'builds/', client);
    const { lines, log } = recordingLog();
    expect(await keptArtifacts({ step, build }, store, log)).toEqual([]);
    expect(lines).toEqual([`Step "build" kept no artifacts: its pod wrote no manifest (s3://${bucket}/${folder}manifest.json)`]);

    const plan = (await planStepArtifacts({ step, build, store }))!;
    await fetch(plan.urls['ARTIFACT_MANIFEST']!, { method: 'PUT', body: '{"artifacts": "no"}' });
    lines.length = 0;
    expect(await keptArtifacts({ step, build }, store, log)).toEqual([]);
    expect(lines).toEqual([`WARN Step "build": s3://${bucket}/${folder}manifest.json is not an artifacts manifest: no artifacts listed`]);
  });

  it('plans nothing for a step without artifacts', async () => {
    const store = s3CacheStore(await moto.bucket(), 'builds/', client);
    expect(await planStepArtifacts({ step: { name: 'test', timeoutSeconds: 60 }, build, store })).toBeUndefined();
    expect(await keptArtifacts({ step: { name: 'test' }, build }, store, recordingLog().log)).toBeUndefined();
  });
});
