import { createInterface } from 'node:readline/promises';

/** Whether a person can answer questions: stdin and stderr (where questions go) are terminals. */
export function canPrompt(): boolean {
  return Boolean(process.stdin.isTTY && process.stderr.isTTY);
}

/** Asks one question on stderr and returns the trimmed answer. */
export async function ask(question: string): Promise<string> {
  const readline = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await readline.question(question)).trim();
  } finally {
    readline.close();
  }
}

/** Asks for a secret without echoing it (raw mode); Ctrl-C aborts the command. */
export function askHidden(question: string): Promise<string> {
  const { stdin, stderr } = process;
  stderr.write(question);
  return new Promise((resolve, reject) => {
    let answer = '';
    const finish = (error?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      stderr.write('\n');
      if (error) reject(error);
      else resolve(answer.trim());
    };
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n' || char === '\u0004') return finish();
        if (char === '\u0003') return finish(new Error('cancelled'));
        if (char === '\u007f' || char === '\b') answer = answer.slice(0, -1);
        else answer += char;
      }
    };
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}
