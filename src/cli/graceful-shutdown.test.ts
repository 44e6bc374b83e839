import { afterEach, expect, test, vi } from 'vitest';
import { onShutdownSignals } from './graceful-shutdown.js';

// SIGUSR2 stands in for SIGINT/SIGTERM: emitting it on `process` calls the handlers without
// delivering a real signal to the test runner.
const SIGNAL = 'SIGUSR2' as const;

afterEach(() => {
  process.removeAllListeners(SIGNAL);
});

function setup(shutdown: () => Promise<void>) {
  const exit = vi.fn();
  const log = vi.fn();
  onShutdownSignals(shutdown, { exit, log, signals: [SIGNAL] });
  return { exit, log };
}

test('the first signal shuts down, then exits 0', async () => {
  let finish!: () => void;
  const shutdown = vi.fn(() => new Promise<void>((resolve) => (finish = resolve)));
  const { exit } = setup(shutdown);

  process.emit(SIGNAL, SIGNAL);
  expect(shutdown).toHaveBeenCalledOnce();
  expect(exit).not.toHaveBeenCalled();

  finish();
  await vi.waitFor(() => expect(exit).toHaveBeenCalledWith(0));
});

test('a second signal exits 1 without waiting', () => {
  const shutdown = vi.fn(() => new Promise<void>(() => {}));
  const { exit } = setup(shutdown);

  process.emit(SIGNAL, SIGNAL);
  process.emit(SIGNAL, SIGNAL);
  expect(shutdown).toHaveBeenCalledOnce();
  expect(exit).toHaveBeenCalledWith(1);
});

test('a failed shutdown exits 1', async () => {
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  const { exit } = setup(() => Promise.reject(new Error('store would not close')));

  process.emit(SIGNAL, SIGNAL);
  await vi.waitFor(() => expect(exit).toHaveBeenCalledWith(1));
  expect(String(stderr.mock.calls[0]?.[0])).toContain('store would not close');
  stderr.mockRestore();
});
