import { createReadStream } from 'node:fs';
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { Logger } from 'pino';
import type { RecordingsBucket } from '../config/config.js';

/** An object of the bucket as the retention sweep sees it. */
export interface BucketObject {
  key: string;
  lastModified: Date;
}

/** How long one request to the bucket may take before it counts as failed. */
const requestTimeoutMs = 30_000;

/**
 * The S3-compatible bucket of recordings (PARLEY_RECORDINGS_URL), through the AWS SDK: the few
 * calls Parley makes, with keys `<prefix><agent id>/<conversation id>.wav`. A 404 is "none";
 * every other failure throws (the caller logs it and keeps the spooled file for the next sweep).
 */
type Sdk = typeof import('@aws-sdk/client-s3');

export class RecordingBucket {
  private readonly s3: S3Client;

  /** Loads the AWS SDK (only when a bucket is configured: it takes a while to import) and makes the client. */
  static async create(o: RecordingsBucket, logger: Logger): Promise<RecordingBucket> {
    return new RecordingBucket(o, await import('@aws-sdk/client-s3'), logger.child({ component: 'aws-sdk' }));
  }

  private constructor(
    readonly o: RecordingsBucket,
    private readonly sdk: Sdk,
    logger: Logger,
  ) {
    this.s3 = new sdk.S3Client({
      region: o.region,
      forcePathStyle: o.forcePathStyle,
      ...(o.endpoint === undefined ? {} : { endpoint: o.endpoint }),
      ...(o.credentials === undefined ? {} : { credentials: o.credentials }),
      // the SDK's own retries (3 attempts, backoff) cover a blip; the sweep covers the rest
      maxAttempts: 3,
      // the SDK's own messages into Parley's log (it writes to the console otherwise)
      logger: {
        trace: (...a: unknown[]) => logger.trace(a.map(String).join(' ')),
        debug: (...a: unknown[]) => logger.debug(a.map(String).join(' ')),
        info: (...a: unknown[]) => logger.debug(a.map(String).join(' ')),
        warn: (...a: unknown[]) => logger.warn(a.map(String).join(' ')),
        error: (...a: unknown[]) => logger.error(a.map(String).join(' ')),
      },
      // no flexible checksums: a streamed body would go out aws-chunked; the signed SHA-256 checks it whole
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: { requestTimeout: requestTimeoutMs, connectionTimeout: 5_000 },
    });
  }

  /** `s3://bucket/prefix` for logs and /health (never the credentials). */
  get label(): string {
    return `s3://${this.o.bucket}/${this.o.prefix}`;
  }

  key(agentId: string, conversationId: string): string {
    return `${this.o.prefix}${agentId}/${conversationId}.wav`;
  }

  /** Whether the bucket answers with these credentials: one ListObjectsV2 of at most one key. */
  async check(): Promise<void> {
    await this.s3.send(new this.sdk.ListObjectsV2Command({ Bucket: this.o.bucket, Prefix: this.o.prefix, MaxKeys: 1 }));
  }

  /**
   * Uploads the file at `path` (`size` bytes, no longer written) as `key`. Its SHA-256 is computed
   * first and signed as the payload's (`x-amz-content-sha256`), the file streamed after: the
   * bucket refuses an upload whose bytes differ from the file's. Then the stored size is read back.
   */
  async upload(key: string, path: string, size: number): Promise<void> {
    const hash = createHash('sha256');
    if (size > 0) for await (const chunk of createReadStream(path, { end: size - 1 })) hash.update(chunk as Buffer);
    const digest = hash.digest('hex');
    const put = new this.sdk.PutObjectCommand({
      Bucket: this.o.bucket,
      Key: key,
      Body: size === 0 ? Buffer.alloc(0) : createReadStream(path, { start: 0, end: size - 1 }),
      ContentLength: size,
      ContentType: 'audio/wav',
    });
    // the signer takes a payload hash already in the headers as the one it signs
    put.middlewareStack.add(
      (next) => (args) => {
        const request = args.request as { headers?: Record<string, string> };
        if (request.headers !== undefined) request.headers['x-amz-content-sha256'] = digest;
        return next(args);
      },
      { step: 'build', name: 'parleyPayloadSha256' },
    );
    await this.s3.send(put);
    const stored = await this.size(key);
    if (stored !== size) throw new Error(`uploaded ${key}: the bucket holds ${stored ?? 'nothing'}, not ${size} bytes`);
  }

  /** The object's size, or null when there is none. */
  async size(key: string): Promise<number | null> {
    try {
      const head = await this.s3.send(new this.sdk.HeadObjectCommand({ Bucket: this.o.bucket, Key: key }));
      return head.ContentLength ?? 0;
    } catch (err) {
      if (err instanceof this.sdk.S3ServiceException && err.$metadata.httpStatusCode === 404) return null;
      throw err;
    }
  }

  /** The object's bytes `start`..`end` (inclusive) as a stream. */
  async read(key: string, start: number, end: number): Promise<Readable> {
    const got = await this.s3.send(
      new this.sdk.GetObjectCommand({ Bucket: this.o.bucket, Key: key, Range: `bytes=${start}-${end}` }),
    );
    if (got.Body === undefined) throw new Error(`GetObject ${key}: no body`);
    return got.Body as Readable;
  }

  /** Deletes the object; none is fine (S3's DeleteObject is idempotent). */
  async delete(key: string): Promise<void> {
    await this.s3.send(new this.sdk.DeleteObjectCommand({ Bucket: this.o.bucket, Key: key }));
  }

  /** Every object under the prefix, page by page. */
  async *list(): AsyncGenerator<BucketObject> {
    let token: string | undefined;
    do {
      const page = await this.s3.send(
        new this.sdk.ListObjectsV2Command({ Bucket: this.o.bucket, Prefix: this.o.prefix, ContinuationToken: token }),
      );
      for (const o of page.Contents ?? [])
        if (o.Key !== undefined && o.LastModified !== undefined) yield { key: o.Key, lastModified: o.LastModified };
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  close(): void {
    this.s3.destroy();
  }
}
