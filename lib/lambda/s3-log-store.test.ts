import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { s3LogStore } from './s3-log-store.js';

describe('the S3 step log store', () => {
  it('puts the whole log under the build prefix and says where', async () => {
    const client = new S3Client({ region: 'eu-west-1' });
    const s3 = mockClient(client);
    s3.on(PutObjectCommand).resolves({});
    const where = await s3LogStore('ci-logs', 'builds/', client).put('gh-app-1', 'test', '+ npm test\nok\n');
    expect(where).toBe('s3://ci-logs/builds/gh-app-1/test.log');
    expect(s3.commandCalls(PutObjectCommand)[0]!.args[0].input).toMatchObject({
      Bucket: 'ci-logs',
      Key: 'builds/gh-app-1/test.log',
      Body: '+ npm test\nok\n',
      ContentType: 'text/plain; charset=utf-8',
    });
  });

  it('never lets a build id or step name climb out of its prefix', async () => {
    const client = new S3Client({ region: 'eu-west-1' });
    mockClient(client).on(PutObjectCommand).resolves({});
    expect(await s3LogStore('b', 'builds/', client).put('../../etc', 'x/y', '')).toBe('s3://b/builds/__.._etc/x_y.log');
  });
});
