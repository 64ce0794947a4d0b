/**
 * A system resolver for the channel lookup gate that answers only when the
 * test says so (as a DNS server that hangs would not), recording the names
 * it was asked.
 */
import type { LookupAddress } from 'node:dns';
import type { ResolveAll } from '../../src/notify/lookup-gate.js';

export function heldResolver() {
  const asked: string[] = [];
  const answers = new Map<string, (error: Error | null, addresses: LookupAddress[]) => void>();
  const resolve: ResolveAll = (hostname, _hints, callback) => {
    asked.push(hostname);
    answers.set(hostname, callback);
  };
  const answer = (hostname: string, address = '203.0.113.7') => {
    answers.get(hostname)?.(null, [{ address, family: 4 }]);
  };
  return { asked, resolve, answer };
}
