import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRecordingsUrl, type RecordingsBucketUrl } from '../../src/config/env-schema.js';
import { RecordingBucket } from '../../src/call-recordings/recording-bucket.js';
import { FakeS3 } from '../support/fake-s3.js';

/** The AWS SDK's requests, signed with SigV4, against the fake S3 that checks every signature as S3 does. */

const keys = { accessKeyId: 'AKIAPARLEYTEST', secretAccessKey: 'parley-test-secret/with+odd=chars' };
let s3: FakeS3;
let dir: string;
const buckets: RecordingBucket[] = [];

async function bucket(secretAccessKey = keys.secretAccessKey): Promise<RecordingBucket> {
  const url = parseRecordingsUrl(s3.recordingsUrl('calls/eu')) as RecordingsBucketUrl;
  const b = await RecordingBucket.create(
    { ...url, credentials: { accessKeyId: keys.accessKeyId, secretAccessKey } },
    pino({ level: 'silent' }),
  );
  buckets.push(b);
  return b;
}

async function text(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString();
}

beforeAll(async () => {
  s3 = await FakeS3.start({ bucket: 'recordings', ...keys });
  dir = await mkdtemp(join(tmpdir(), 'parley-bucket-'));
});
afterAll(async () => {
  for (const b of buckets) b.close();
  await s3.close();
  await rm(dir, { recursive: true, force: true });
});

describe('parseRecordingsUrl', () => {
  it('reads the bucket, prefix, endpoint, region and addressing', () => {
    expect(parseRecordingsUrl('s3://my-bucket/a/b/?region=eu-west-1')).toEqual({
      bucket: 'my-bucket',
      prefix: 'a/b/',
      endpoint: undefined,
      region: 'eu-west-1',
      forcePathStyle: false,
    });
    expect(parseRecordingsUrl('s3://rec?endpoint=http://127.0.0.1:9000')).toMatchObject({
      prefix: '',
      endpoint: 'http://127.0.0.1:9000',
      region: 'us-east-1',
      forcePathStyle: true,
    });
  });
  it.each([
    ['https://bucket/x', /s3:\/\//],
    ['s3://Bad_Bucket', /not a bucket name/],
    ['s3://key:secret@bucket', /no credentials/],
    ['s3://bucket?endpoint=ftp://x', /http\(s\) origin/],
    ['s3://bucket?color=red', /unknown parameter color/],
    ['s3://bucket?path_style=maybe', /path_style/],
  ])('refuses %s', (url, problem) => {
    expect(parseRecordingsUrl(url)).toMatch(problem);
  });
});

describe('RecordingBucket', () => {
  it('uploads a file, reads its size and byte ranges, lists it and deletes it', async () => {
    const b = await bucket();
    await b.check();
    const path = join(dir, 'a.wav');
    await writeFile(path, 'RIFF-0123456789');
    const key = b.key('agt_x', 'cnv_y');
    expect(key).toBe('calls/eu/agt_x/cnv_y.wav');
    await b.upload(key, path, 15);
    expect(s3.objects.get(key)).toMatchObject({ body: Buffer.from('RIFF-0123456789'), payloadSigned: true });
    expect(await b.size(key)).toBe(15);
    expect(await text(await b.read(key, 5, 9))).toBe('01234');
    expect(await text(await b.read(key, 10, 14))).toBe('56789');
    const listed = [];
    for await (const o of b.list()) listed.push(o.key);
    expect(listed).toEqual([key]);
    await b.delete(key);
    expect(await b.size(key)).toBeNull();
    expect(s3.refused).toBe(0);
  });

  it('lists page by page', async () => {
    const b = await bucket();
    for (let i = 0; i < 1005; i++)
      s3.objects.set(`calls/eu/agt_p/k${i}.wav`, {
        body: Buffer.alloc(1),
        lastModified: new Date(),
        payloadSigned: true,
      });
    let n = 0;
    for await (const o of b.list()) if (o.key.startsWith('calls/eu/agt_p/')) n++;
    expect(n).toBe(1005);
    for (const k of [...s3.objects.keys()]) s3.objects.delete(k);
  });

  it('a wrong secret is refused by the signature check (SignatureDoesNotMatch)', async () => {
    const b = await bucket('not-the-secret');
    const refused = s3.refused;
    await expect(b.check()).rejects.toMatchObject({ name: 'SignatureDoesNotMatch' });
    expect(s3.refused).toBeGreaterThan(refused);
  });
});

describe('the fake S3', () => {
  /** AWS's worked example of a signed request (S3 API reference, "Signature Calculations for the Authorization Header", GET Object). */
  const example = {
    host: 'examplebucket.s3.amazonaws.com',
    range: 'bytes=0-9',
    'x-amz-content-sha256': 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    'x-amz-date': '20130524T000000Z',
    authorization:
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
  };

  async function send(fake: FakeS3, headers: Record<string, string>): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request(`${fake.url}/test.txt`, { method: 'GET', headers }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it("checks signatures as S3 does: AWS's own example passes, the same request altered is refused", async () => {
    const fake = await FakeS3.start({
      bucket: 'recordings',
      accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    });
    try {
      // signed right: past the signature check, the path-style fake finds no bucket "test.txt"
      expect(await send(fake, example)).toMatchObject({ status: 404, body: expect.stringContaining('NoSuchBucket') });
      const altered = await send(fake, { ...example, range: 'bytes=0-10' });
      expect(altered).toMatchObject({ status: 403, body: expect.stringContaining('SignatureDoesNotMatch') });
      expect(fake.refused).toBe(1);
    } finally {
      await fake.close();
    }
  });
});
