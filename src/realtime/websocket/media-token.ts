import { createHmac } from 'node:crypto';
import { jwtVerify, SignJWT, errors as joseErrors } from 'jose';

/**
 * Connection tokens for Parley's own WebSocket media endpoint: HS256 JWTs naming one session and
 * its agent, short-lived. The signing key is derived from the admin key, so every instance that
 * shares the admin key accepts tokens any of them issued, and rotating the admin key revokes them.
 */
const audience = 'parley-media';
const issuer = 'parley';

export interface MediaClaims {
  sessionId: string;
  agentId: string;
}

export class MediaTokens {
  private readonly key: Uint8Array;

  constructor(adminApiKey: string) {
    this.key = createHmac('sha256', adminApiKey).update('parley media token v1').digest();
  }

  async issue(claims: MediaClaims, ttlS: number): Promise<string> {
    return new SignJWT({ agt: claims.agentId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.sessionId)
      .setAudience(audience)
      .setIssuer(issuer)
      .setIssuedAt()
      .setExpirationTime(`${ttlS}s`)
      .sign(this.key);
  }

  /** The claims of a valid token; throws MediaTokenError (expired, bad signature, malformed). */
  async verify(token: string): Promise<MediaClaims> {
    try {
      const { payload } = await jwtVerify(token, this.key, { audience, issuer, algorithms: ['HS256'] });
      if (typeof payload.sub !== 'string' || typeof payload['agt'] !== 'string')
        throw new MediaTokenError('token lacks session or agent');
      return { sessionId: payload.sub, agentId: payload['agt'] };
    } catch (err) {
      if (err instanceof MediaTokenError) throw err;
      if (err instanceof joseErrors.JWTExpired) throw new MediaTokenError('token expired');
      throw new MediaTokenError('token invalid');
    }
  }
}

export class MediaTokenError extends Error {
  override name = 'MediaTokenError';
}
