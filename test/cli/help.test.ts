/**
 * `clarion help` is what an operator types first: it answers on standard
 * output and succeeds, and says where the settings are told. A command line
 * it refuses fails on standard error, saying what is wrong before the usage.
 */
import { describe, expect, it } from 'vitest';
import { runCommand } from '../support/clarion-process.js';

describe('clarion help', () => {
  it.each([['help'], ['--help'], ['-h']])('%s prints the commands and exits 0', async (arg) => {
    const run = await runCommand([arg], {});
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^usage: clarion serve/);
    for (const command of ['serve', 'sign-in-link', 'mcp-stdio']) {
      expect(run.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    }
    expect(run.stdout).toContain('"Configuration"');
  });

  it('refuses a command it does not know, on standard error, with exit 2', async () => {
    const run = await runCommand(['serv'], {});
    expect(run).toMatchObject({ code: 2, stdout: '' });
    expect(run.stderr).toMatch(
      /^clarion: unknown command "serv"\nusage: clarion serve .* \| clarion help\n$/,
    );
  });

  it('tells `serve --port` that settings come from the environment, and serves nothing', async () => {
    const run = await runCommand(['serve', '--port', '8080'], {});
    expect(run).toMatchObject({ code: 2, stdout: '' });
    expect(run.stderr).toMatch(/^clarion serve: takes no options \(got "--port"\);.*CLARION_PORT=/);
  });
});
