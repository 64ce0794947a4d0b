import { describe, expect, it } from 'vitest';
import { FALLBACK_VAPID_SUBJECT, vapidSubject } from './vapid.js';

describe('vapidSubject', () => {
  it('prefers an operator contact', () => {
    expect(
      vapidSubject({ contact: 'mailto:ops@example.org', publicOrigin: 'https://a.example.org' }),
    ).toEqual({ subject: 'mailto:ops@example.org', usable: true });
  });

  it('uses an https public origin on a name that could resolve', () => {
    expect(vapidSubject({ publicOrigin: 'https://clarion.example.org:8443/x' })).toEqual({
      subject: 'https://clarion.example.org:8443',
      usable: true,
    });
    expect(vapidSubject({ publicOrigin: 'https://box.tail1234.ts.net' }).usable).toBe(true);
  });

  it.each([
    'http://clarion.example.org',
    'https://localhost:7420',
    'https://clarion.local',
    'https://clarion.invalid',
    'https://192.168.1.10',
    'https://[::1]:7420',
    'https://clarion',
  ])('falls back (and says so) for %s, which Apple’s push service refuses', (publicOrigin) => {
    expect(vapidSubject({ publicOrigin })).toEqual({
      subject: FALLBACK_VAPID_SUBJECT,
      usable: false,
    });
  });

  it('ignores a contact that is neither mailto: nor a resolvable https: URL', () => {
    expect(vapidSubject({ contact: 'ops@example.org' }).usable).toBe(false);
    expect(vapidSubject({ contact: 'https://localhost' }).usable).toBe(false);
  });
});
