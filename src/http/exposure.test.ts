import { describe, expect, it } from 'vitest';
import {
  allowedHostnames,
  exposureWarning,
  hostnameOf,
  isLoopbackAddress,
  isLoopbackHost,
} from './exposure.js';

describe('host names', () => {
  it.each([
    ['localhost:7420', 'localhost'],
    ['LocalHost', 'localhost'],
    ['127.0.0.1:7420', '127.0.0.1'],
    ['[::1]:7420', '[::1]'],
    ['::1', '[::1]'],
    ['0.0.0.0', '0.0.0.0'],
    ['clarion.example.com', 'clarion.example.com'],
    ['', undefined],
    ['localhost@evil.example', undefined],
    ['evil.example/path', undefined],
    ['evil.example?x', undefined],
  ])('%s → %s', (value, expected) => {
    expect(hostnameOf(value)).toBe(expected);
  });

  it('answers loopback names, the listen address and the public origin’s host', () => {
    expect(allowedHostnames('0.0.0.0', 'https://clarion.example.com')).toEqual([
      'localhost',
      '127.0.0.1',
      '[::1]',
      '0.0.0.0',
      'clarion.example.com',
    ]);
    expect(allowedHostnames('127.0.0.1')).toEqual(['localhost', '127.0.0.1', '[::1]']);
  });
});

describe('loopback', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.0.2.2', false],
    ['clarion.lan', false],
  ])('listening on %s stays on this machine: %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });

  it.each([
    ['127.0.0.1', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:192.0.2.7', false],
    ['192.0.2.7', false],
    [undefined, false],
  ])('peer %s is this machine: %s', (address, expected) => {
    expect(isLoopbackAddress(address)).toBe(expected);
  });
});

describe('the exposure warning', () => {
  it('is given for a non-loopback listen address without an https public origin', () => {
    expect(exposureWarning('0.0.0.0')).toMatch(/listening on 0\.0\.0\.0.*in clear text/);
    expect(exposureWarning('0.0.0.0', 'http://clarion.lan:7420')).toBeDefined();
    expect(exposureWarning('0.0.0.0', 'https://clarion.example.com')).toBeUndefined();
    expect(exposureWarning('127.0.0.1')).toBeUndefined();
    expect(exposureWarning('localhost')).toBeUndefined();
  });
});
