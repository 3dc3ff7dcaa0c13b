import { describe, expect, it } from 'vitest';
import { Code } from '../errors/code.js';
import type { GatewayError } from '../errors/gateway-error.js';
import { publicOnlyPolicy } from './address-policy.js';
import { checkEgressUrl } from './egress-url.js';

function refusal(url: string, policy = publicOnlyPolicy): GatewayError {
  try {
    checkEgressUrl(url, policy);
  } catch (error) {
    return error as GatewayError;
  }
  throw new Error(`${url} was accepted`);
}

describe('checkEgressUrl', () => {
  it('accepts http and https URLs with host names and public addresses, dropping the fragment', () => {
    expect(checkEgressUrl('https://example.com/hook?x=1#frag', publicOnlyPolicy).href).toBe('https://example.com/hook?x=1');
    expect(checkEgressUrl(new URL('http://93.184.216.34:8080/'), publicOnlyPolicy).host).toBe('93.184.216.34:8080');
    expect(checkEgressUrl('http://[2606:4700:4700::1111]/', publicOnlyPolicy).hostname).toBe('[2606:4700:4700::1111]');
  });

  it.each(['file:///etc/passwd', 'ftp://example.com/x', 'gopher://example.com/', 'data:text/plain,hi', 'javascript:alert(1)', 'ws://example.com/', 'blob:https://example.com/x'])(
    'refuses %s: only http and https',
    (url) => {
      const error = refusal(url);
      expect(error.code).toBe(Code.INVALID_ARGUMENT);
      expect(error.reason).toBe('EGRESS_URL_INVALID');
      expect(error.message).toContain('only http: and https:');
    },
  );

  it('refuses what is not an absolute URL, and URLs with credentials', () => {
    for (const url of ['', '/relative/path', 'example.com', 'http://', 'http://exa mple.com/']) {
      expect(refusal(url).reason, url).toBe('EGRESS_URL_INVALID');
    }
    expect(refusal('https://user:secret@example.com/').message).toContain('credentials');
  });

  it.each([
    'http://127.0.0.1/',
    'http://127.1/',
    'http://127.0.0.1./',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://0x7f.1/',
    'http://0177.0.0.1/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://0.0.0.0/',
    'http://0/',
    'http://[::]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://2852039166/',
    'http://[::ffff:169.254.169.254]/',
    'http://[fe80::1]/',
    'http://10.0.0.1/',
    'http://100.64.0.1/',
    'http://[fc00::1]/',
    'http://[fd00::1]/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
  ])('refuses the address literal in %s', (url) => {
    const error = refusal(url);
    expect(error.code).toBe(Code.INVALID_ARGUMENT);
    expect(error.reason).toBe('EGRESS_ADDRESS_REFUSED');
  });

  it('lets the flags through: loopback with allowLoopback, private networks with allowPrivate, link-local never', () => {
    const loopback = { allowLoopback: true, allowPrivate: false };
    const internal = { allowLoopback: false, allowPrivate: true };
    expect(checkEgressUrl('http://127.0.0.1:9/', loopback).hostname).toBe('127.0.0.1');
    expect(checkEgressUrl('http://[::1]:9/', loopback).hostname).toBe('[::1]');
    expect(checkEgressUrl('http://2130706433/', loopback).hostname).toBe('127.0.0.1');
    expect(refusal('http://10.0.0.1/', loopback).reason).toBe('EGRESS_ADDRESS_REFUSED');
    expect(checkEgressUrl('http://10.0.0.1/', internal).hostname).toBe('10.0.0.1');
    expect(checkEgressUrl('http://[fd00::1]/', internal).hostname).toBe('[fd00::1]');
    expect(refusal('http://127.0.0.1/', internal).reason).toBe('EGRESS_ADDRESS_REFUSED');
    const everything = { allowLoopback: true, allowPrivate: true };
    for (const url of ['http://169.254.169.254/', 'http://0.0.0.0/', 'http://[::]/', 'http://[fe80::1]/', 'http://224.0.0.1/']) {
      expect(refusal(url, everything).reason, url).toBe('EGRESS_ADDRESS_REFUSED');
    }
  });

  it('names the kind of address without more detail', () => {
    expect(refusal('http://169.254.169.254/').message).toBe(
      'outbound request refused: 169.254.169.254 is a link-local address, and only public addresses may be called',
    );
    expect(refusal('http://[::]/').message).toContain('[::] is an unspecified address');
  });
});
