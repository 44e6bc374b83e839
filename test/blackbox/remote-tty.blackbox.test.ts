import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { createIndex } from '../helpers/factories.js';
import { useRemoteTarget } from './support/remote-cli.js';

const remote = useRemoteTarget();
const BIN = fileURLToPath(new URL('../../bin/searchplane.js', import.meta.url));
/** util-linux `script` runs a command on a pseudo-terminal (Debian has it in every install). */
const SCRIPT = '/usr/bin/script';

const ERASE_LINE = '\u001b[2K';
const BAR = /^\[[#-]{24}\] [\d,]+ docs · [\d,]+ docs\/s · \d+% · ETA \d+:\d\d/;

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

test.skipIf(!existsSync(SCRIPT))('on a terminal, import draws a progress bar with docs/s and an ETA', async () => {
  await createIndex(remote.ctx.app, remote.account, { name: 'tty' });
  const lines = Array.from({ length: 3000 }, (_, i) =>
    JSON.stringify({ id: `tty-${i}`, content: { title: `A document about terminals number ${i}` } }),
  );
  const file = remote.file('tty.jsonl', lines.join('\n'));
  const command = [process.execPath, BIN, ...remote.flags(), 'docs', 'import', 'tty', file, '--batch-size', '100']
    .map(quote)
    .join(' ');
  // Not spawnSync: the server answering the CLI runs in this process.
  const child = spawn(SCRIPT, ['-q', '-e', '-c', `stty cols 120 rows 40; ${command}`, '/dev/null'], {
    env: { ...process.env, XDG_CONFIG_HOME: remote.configHome },
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  const code = await new Promise((resolve) => child.on('close', resolve));
  expect(code).toBe(0);
  // Redrawn in place: carriage return and "erase line", then the bar.
  const redraws = output.split(`\r${ERASE_LINE}`).slice(1);
  expect(redraws.some((text) => BAR.test(text))).toBe(true);
  expect(output).toMatch(/imported 3,000 documents into tty/);
});
