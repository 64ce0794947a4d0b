/**
 * A platform check beside benchmark 7: how fast a bare `node:http` server
 * accepts a burst of new connections while its event loop is busy, as a
 * saturated Clarion's is. The server runs in a worker thread, whose loop
 * spins `turnMs` per turn; the burst comes from this thread, each request on
 * a connection of its own, first with the server idle, then busy.
 *
 * On this machine (a gVisor sandbox) the server took one connection per turn
 * of its loop, so a burst of new connections waits up to `burst × turnMs`
 * (see RESULTS.md). Nothing of Clarion runs here: the number describes the
 * platform the load benchmark runs on.
 */
import { request } from 'node:http';
import { Worker } from 'node:worker_threads';
import { round, summarize, type LatencySummary } from './stats.js';

export interface AcceptRateResult {
  burst: number;
  turnMs: number;
  /** Request latency, each on a new connection, with the server's loop idle and busy. */
  idle: LatencySummary;
  busy: LatencySummary;
  /** New connections the busy server took per turn of its loop: `burst / (max / turnMs)`. */
  acceptedPerTurn: number;
}

/** Evaluated, so that it runs the same from `dist/` and from the sources the quick test runs. */
const SERVER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createServer } = require('node:http');
let turnMs = 0;
const server = createServer((req, res) => res.end('ok'));
const spin = () => {
  if (turnMs === 0) return;
  const until = Date.now() + turnMs;
  while (Date.now() < until);
  setImmediate(spin);
};
parentPort.on('message', (message) => {
  if (message === 'stop') {
    turnMs = 0;
    server.close(() => parentPort.close());
    return;
  }
  turnMs = message;
  spin();
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;

export async function measureAcceptRate(burst: number, turnMs: number): Promise<AcceptRateResult> {
  const worker = new Worker(SERVER_SOURCE, { eval: true });
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      resolve();
    }),
  );
  try {
    const port = await new Promise<number>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    const idle = await burstOfConnections(port, burst);
    worker.postMessage(turnMs);
    const busy = await burstOfConnections(port, burst);
    return {
      burst,
      turnMs,
      idle,
      busy,
      acceptedPerTurn: round(burst / Math.max(1, busy.maxMs / turnMs), 2),
    };
  } finally {
    worker.postMessage('stop');
    await exited;
  }
}

async function burstOfConnections(port: number, count: number): Promise<LatencySummary> {
  const times = await Promise.all(
    Array.from({ length: count }, () => {
      const started = performance.now();
      return new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, agent: false }, (res) => {
          res.resume();
          res.on('end', () => {
            resolve(performance.now() - started);
          });
        });
        req.on('error', reject);
        req.end();
      });
    }),
  );
  return summarize(times);
}
