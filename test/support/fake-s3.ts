import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An S3-compatible server for tests (no real S3 runs here), path-style (`/<bucket>/<key>`), with
 * the calls Parley makes: PutObject, HeadObject, GetObject (one Range), DeleteObject and
 * ListObjectsV2. Every request must carry an AWS Signature Version 4 that checks exactly as S3
 * checks it (canonical request, string to sign, HMAC-SHA256 key derivation) and a payload whose
 * SHA-256 is the signed `x-amz-content-sha256`; else 403 SignatureDoesNotMatch / 400
 * XAmzContentSHA256Mismatch, as S3 answers.
 */

export interface FakeS3Object {
  body: Buffer;
  lastModified: Date;
  /** Whether the upload signed its payload's SHA-256 (else UNSIGNED-PAYLOAD: nothing checked the bytes). */
  payloadSigned: boolean;
}

export interface FakeS3Options {
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region?: string;
}

/** RFC 3986 encoding as SigV4 wants it (unreserved characters kept, everything else %XX). */
function encode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data).digest();

export class FakeS3 {
  readonly objects = new Map<string, FakeS3Object>();
  /** Requests refused for their signature (or an unknown key). */
  refused = 0;
  readonly url: string;
  private readonly region: string;

  private constructor(
    private readonly server: Server,
    private readonly o: FakeS3Options,
  ) {
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    this.region = o.region ?? 'us-east-1';
  }

  static async start(o: FakeS3Options): Promise<FakeS3> {
    const started: { fake?: FakeS3 } = {};
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => started.fake!.handle(req, res, Buffer.concat(chunks)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    started.fake = new FakeS3(server, o);
    return started.fake;
  }

  /** `s3://…` for PARLEY_RECORDINGS_URL. */
  recordingsUrl(prefix = ''): string {
    return `s3://${this.o.bucket}/${prefix}?endpoint=${encodeURIComponent(this.url)}&region=${this.region}&path_style=true`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    const problem = this.verify(req, url, body);
    if (problem !== null) {
      this.refused++;
      return error(res, problem.status, problem.code, problem.message);
    }
    const [, bucket = '', ...rest] = url.pathname.split('/');
    if (decodeURIComponent(bucket) !== this.o.bucket) return error(res, 404, 'NoSuchBucket', 'no such bucket');
    const key = rest.map(decodeURIComponent).join('/');
    if (key === '') {
      if (req.method === 'GET' && url.searchParams.get('list-type') === '2') return this.list(res, url.searchParams);
      return error(res, 405, 'MethodNotAllowed', `${req.method} on the bucket`);
    }
    const object = this.objects.get(key);
    switch (req.method) {
      case 'PUT':
        this.objects.set(key, {
          body,
          lastModified: new Date(),
          payloadSigned: req.headers['x-amz-content-sha256'] !== 'UNSIGNED-PAYLOAD',
        });
        res.writeHead(200, { ETag: `"${createHash('md5').update(body).digest('hex')}"` }).end();
        return;
      case 'DELETE':
        this.objects.delete(key);
        res.writeHead(204).end();
        return;
      case 'HEAD':
        if (object === undefined) return void res.writeHead(404).end();
        res.writeHead(200, objectHeaders(object, object.body.length)).end();
        return;
      case 'GET':
        if (object === undefined) return error(res, 404, 'NoSuchKey', 'The specified key does not exist.');
        return this.get(res, object, req.headers.range);
      default:
        return error(res, 405, 'MethodNotAllowed', String(req.method));
    }
  }

  private get(res: ServerResponse, object: FakeS3Object, range: string | undefined): void {
    const size = object.body.length;
    if (range === undefined) return void res.writeHead(200, objectHeaders(object, size)).end(object.body);
    const m = /^bytes=(\d+)-(\d*)$/.exec(range);
    if (m === null) return error(res, 400, 'InvalidArgument', `Range ${range}`);
    const start = Number(m[1]);
    const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (start >= size) return error(res, 416, 'InvalidRange', 'The requested range is not satisfiable');
    res
      .writeHead(206, { ...objectHeaders(object, end - start + 1), 'Content-Range': `bytes ${start}-${end}/${size}` })
      .end(object.body.subarray(start, end + 1));
  }

  private list(res: ServerResponse, q: URLSearchParams): void {
    const prefix = q.get('prefix') ?? '';
    const max = Number(q.get('max-keys') ?? 1000);
    const after = q.get('continuation-token') ?? '';
    const keys = [...this.objects.keys()].filter((k) => k.startsWith(prefix) && k > after).sort();
    const page = keys.slice(0, max);
    const truncated = keys.length > page.length;
    const contents = page
      .map((k) => {
        const o = this.objects.get(k)!;
        return `<Contents><Key>${xml(k)}</Key><LastModified>${o.lastModified.toISOString()}</LastModified><Size>${o.body.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
      })
      .join('');
    const next = truncated ? `<NextContinuationToken>${xml(page.at(-1)!)}</NextContinuationToken>` : '';
    res
      .writeHead(200, { 'Content-Type': 'application/xml' })
      .end(
        `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${this.o.bucket}</Name><Prefix>${xml(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${max}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${contents}${next}</ListBucketResult>`,
      );
  }

  /** SigV4 as S3 checks it (header form); null when the request is signed right. */
  private verify(
    req: IncomingMessage,
    url: URL,
    body: Buffer,
  ): { status: number; code: string; message: string } | null {
    const deny = (code: string, message: string, status = 403) => ({ status, code, message });
    const auth = req.headers.authorization ?? '';
    const m =
      /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(
        auth,
      );
    if (m === null) return deny('AccessDenied', 'not signed with AWS4-HMAC-SHA256');
    const [, accessKeyId, date, region, signedHeaders, signature] = m as unknown as string[];
    if (accessKeyId !== this.o.accessKeyId) return deny('InvalidAccessKeyId', 'unknown access key');
    if (region !== this.region) return deny('AuthorizationHeaderMalformed', `region ${region}`, 400);
    const amzDate = String(req.headers['x-amz-date'] ?? '');
    if (!amzDate.startsWith(date!)) return deny('AccessDenied', 'x-amz-date disagrees with the credential scope');
    const payloadHash = req.headers['x-amz-content-sha256'];
    if (typeof payloadHash !== 'string') return deny('InvalidRequest', 'x-amz-content-sha256 missing', 400);
    if (payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== sha256(body))
      return deny('XAmzContentSHA256Mismatch', "the payload's SHA-256 is not the one signed", 400);
    const names = signedHeaders!.split(';');
    if (!names.includes('host') || !names.includes('x-amz-date') || !names.includes('x-amz-content-sha256'))
      return deny('AccessDenied', 'host, x-amz-date and x-amz-content-sha256 must be signed');
    const canonicalHeaders = names
      .map((name) => {
        const value = req.headers[name];
        return `${name}:${(Array.isArray(value) ? value.join(',') : (value ?? '')).trim().replace(/\s+/g, ' ')}\n`;
      })
      .join('');
    const canonicalUri = url.pathname
      .split('/')
      .map((segment) => encode(decodeURIComponent(segment)))
      .join('/');
    const canonicalQuery = [...url.searchParams.entries()]
      .map(([k, v]) => [encode(k), encode(v)] as const)
      .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
    const canonicalRequest = [
      req.method,
      canonicalUri,
      canonicalQuery,
      canonicalHeaders,
      signedHeaders,
      payloadHash,
    ].join('\n');
    const scope = `${date}/${region}/s3/aws4_request`;
    const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
    const key = hmac(hmac(hmac(hmac(`AWS4${this.o.secretAccessKey}`, date!), region!), 's3'), 'aws4_request');
    const expected = hmac(key, stringToSign);
    if (!timingSafeEqual(expected, Buffer.from(signature!, 'hex')))
      return deny(
        'SignatureDoesNotMatch',
        'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
      );
    return null;
  }
}

function objectHeaders(object: FakeS3Object, length: number): Record<string, string> {
  return {
    'Content-Type': 'audio/wav',
    'Content-Length': String(length),
    'Last-Modified': object.lastModified.toUTCString(),
    ETag: `"${createHash('md5').update(object.body).digest('hex')}"`,
    'Accept-Ranges': 'bytes',
  };
}

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function error(res: ServerResponse, status: number, code: string, message: string): void {
  res
    .writeHead(status, { 'Content-Type': 'application/xml' })
    .end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${xml(message)}</Message></Error>`);
}
