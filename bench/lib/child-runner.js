// Runs one part of the benchmark in its own Node process (its own memory and event loop), talking
// over the IPC channel: the parent sends the options, the child sends `ready`, progress and its
// final `result`. Child scripts use `childMain` below.
import { fork } from 'node:child_process';

/**
 * Starts `script` with `options` (JSON-serializable). Returns `{ pid, ready, result, send, ask, kill }`:
 * `ready` resolves when the child says so, `result` with the value it reports (rejects when it
 * fails or exits without one), `ask(message)` with the child's next `reply` (see childMain).
 */
export function startChild(script, options, { execArgv = ['--expose-gc'] } = {}) {
  const child = fork(script, [], {
    execArgv,
    env: { ...process.env, BENCH_CHILD_OPTIONS: JSON.stringify(options) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const replies = [];
  let markReady;
  const ready = new Promise((resolve) => {
    markReady = resolve;
  });
  const result = new Promise((resolve, reject) => {
    let value;
    let failure;
    child.on('message', (message) => {
      if (message.type === 'ready') markReady(message.value);
      else if (message.type === 'result') value = message.value;
      else if (message.type === 'error') failure = message.error;
      else if (message.type === 'reply') replies.shift()?.resolve(message.value);
    });
    child.on('exit', (code, signal) => {
      for (const reply of replies.splice(0)) reply.reject(new Error(`${script} exited before replying`));
      if (value !== undefined && code === 0) resolve(value);
      else reject(new Error(`${script} failed (${signal ?? `exit ${code}`})${failure ? `: ${failure}` : ''}`));
    });
  });
  ready.catch(() => {});
  return {
    pid: child.pid,
    ready: Promise.race([ready, result.then(() => undefined)]),
    result,
    send: (message) => child.connected && child.send(message),
    ask: (message) =>
      new Promise((resolve, reject) => {
        replies.push({ resolve, reject });
        child.send(message);
      }),
    kill: () => child.exitCode === null && child.kill('SIGKILL'),
  };
}

/** Starts a child and resolves to its result. */
export function runChild(script, options, settings) {
  return startChild(script, options, settings).result;
}

/**
 * The body of a child script: `main(options, { ready, onMessage, reply, progress })` runs with the
 * parent's options; what it resolves to is sent back as the result, an error is reported and exits 1.
 * `reply(value)` answers the parent's `ask`, in order.
 */
export async function childMain(name, main) {
  const options = JSON.parse(process.env.BENCH_CHILD_OPTIONS ?? '{}');
  const progress = (line) => process.stderr.write(`  [${name}] ${line}\n`);
  const listeners = [];
  process.on('message', (message) => {
    for (const listener of listeners) listener(message);
  });
  try {
    const value = await main(options, {
      ready: (value = true) => process.send({ type: 'ready', value }),
      onMessage: (listener) => listeners.push(listener),
      reply: (value) => process.send({ type: 'reply', value }),
      progress,
    });
    process.send({ type: 'result', value }, () => process.exit(0));
  } catch (error) {
    progress(`failed: ${error?.stack ?? error}`);
    process.send({ type: 'error', error: String(error?.message ?? error) }, () => process.exit(1));
  }
}
