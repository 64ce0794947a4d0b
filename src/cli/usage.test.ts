import { describe, expect, it } from 'vitest';
import { refusal, refused, USAGE } from './usage.js';

describe('what a refused command line is told', () => {
  it('names a command it does not know', () => {
    expect(refusal(['serv'])).toBe('clarion: unknown command "serv"');
  });

  it('tells an option on serve that settings come from the environment', () => {
    const told = refusal(['serve', '--port', '8080']);
    expect(told).toContain('clarion serve: takes no options (got "--port")');
    expect(told).toContain('CLARION_PORT=8080');
    expect(told).toContain('"Configuration"');
  });

  it('tells an option on mcp-stdio the two variables it reads, not the server port', () => {
    const told = refusal(['mcp-stdio', '--url', 'http://127.0.0.1:7420/mcp']);
    expect(told).toContain('clarion mcp-stdio: takes no options (got "--url")');
    expect(told).toContain('CLARION_MCP_URL');
    expect(told).toContain('CLARION_TOKEN');
    expect(told).not.toContain('CLARION_PORT');
  });

  it('names a stray argument, and what sign-in-link takes', () => {
    expect(refusal(['mcp-stdio', 'now'])).toBe('clarion mcp-stdio: takes no arguments (got "now")');
    expect(refusal(['sign-in-link', '--who', 'admin'])).toBe(
      'clarion sign-in-link: takes only --user NAME (got "--who admin")',
    );
  });

  it('puts the usage after the refusal', () => {
    expect(refused(['serv'])).toBe(`clarion: unknown command "serv"\n${USAGE}\n`);
  });
});
