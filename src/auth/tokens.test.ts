import { describe, expect, it } from 'vitest';
import { generateSecret, hashSecret, TOKEN_PREFIX } from './tokens.js';

describe('token secrets', () => {
  it('are the prefix and 32 random bytes in base64url', () => {
    const secret = generateSecret();
    expect(secret.startsWith(TOKEN_PREFIX)).toBe(true);
    const bytes = Buffer.from(secret.slice(TOKEN_PREFIX.length), 'base64url');
    expect(bytes).toHaveLength(32);
    expect(secret).toMatch(/^clr_[A-Za-z0-9_-]+$/);
  });

  it('do not repeat', () => {
    const secrets = new Set(Array.from({ length: 1000 }, () => generateSecret()));
    expect(secrets.size).toBe(1000);
  });

  it('are stored as their SHA-256 in lowercase hex', () => {
    expect(hashSecret('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(hashSecret('clr_x')).toMatch(/^[0-9a-f]{64}$/);
  });
});
