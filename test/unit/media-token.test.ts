import { SignJWT } from 'jose';
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MediaTokenError, MediaTokens } from '../../src/realtime/websocket/media-token.js';

const adminKey = 'admin-key-0123456789abcdef';

describe('WebSocket media tokens', () => {
  it('round-trips the session and agent', async () => {
    const tokens = new MediaTokens(adminKey);
    const token = await tokens.issue({ sessionId: 'ses_a', agentId: 'agt_b' }, 60);
    await expect(tokens.verify(token)).resolves.toEqual({ sessionId: 'ses_a', agentId: 'agt_b' });
  });

  it('rejects an expired token', async () => {
    // Signed with the same derived key, expired a minute ago.
    const key = createHmac('sha256', adminKey).update('parley media token v1').digest();
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({ agt: 'agt_b' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('ses_a')
      .setAudience('parley-media')
      .setIssuer('parley')
      .setIssuedAt(now - 120)
      .setExpirationTime(now - 60)
      .sign(key);
    await expect(new MediaTokens(adminKey).verify(expired)).rejects.toThrow(new MediaTokenError('token expired'));
  });

  it('rejects tokens from another admin key, malformed tokens, and tokens without the claims', async () => {
    const other = await new MediaTokens('another-admin-key-0123456789').issue(
      { sessionId: 'ses_a', agentId: 'agt_b' },
      60,
    );
    const tokens = new MediaTokens(adminKey);
    await expect(tokens.verify(other)).rejects.toThrow(MediaTokenError);
    await expect(tokens.verify('not.a.jwt')).rejects.toThrow(MediaTokenError);
    const key = createHmac('sha256', adminKey).update('parley media token v1').digest();
    const noAgent = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('ses_a')
      .setAudience('parley-media')
      .setIssuer('parley')
      .setExpirationTime('1m')
      .sign(key);
    await expect(tokens.verify(noAgent)).rejects.toThrow(new MediaTokenError('token lacks session or agent'));
  });
});
