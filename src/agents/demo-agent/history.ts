/**
 * The demo agent's memory of a conversation, kept in a small file per ACP
 * session so a new demo agent process can `session/load` it after Clarion
 * stopped the old one (idle, or a restart): the prompts so far, oldest
 * first. The directory is `CLARION_DEMO_HISTORY_DIR`, else one under the
 * system's temporary directory. Only UUID-shaped session IDs name files.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Enough to prove a conversation goes on; a long one forgets its oldest prompts. */
const KEPT_PROMPTS = 50;

export class DemoHistory {
  constructor(private readonly dir: string) {}

  static fromEnvironment(env: NodeJS.ProcessEnv): DemoHistory {
    return new DemoHistory(env.CLARION_DEMO_HISTORY_DIR ?? join(tmpdir(), 'clarion-demo-agent'));
  }

  /** The prompts of a known conversation; `undefined` for an unknown or malformed ID. */
  load(sessionId: string): string[] | undefined {
    if (!SESSION_ID.test(sessionId)) return undefined;
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.file(sessionId), 'utf8'));
      return Array.isArray(parsed) ? parsed.filter((p): p is string => typeof p === 'string') : [];
    } catch {
      // Missing or unreadable: a conversation this agent cannot load.
      return undefined;
    }
  }

  save(sessionId: string, prompts: readonly string[]): void {
    if (!SESSION_ID.test(sessionId)) return;
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    writeFileSync(this.file(sessionId), JSON.stringify(prompts.slice(-KEPT_PROMPTS)), {
      mode: 0o600,
    });
  }

  private file(sessionId: string): string {
    return join(this.dir, `${sessionId}.json`);
  }
}
