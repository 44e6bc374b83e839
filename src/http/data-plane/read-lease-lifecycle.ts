import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ReadLease } from '../../services/data-plane/index.js';

/**
 * The leases of the requests on each connection (several while requests are pipelined), with the
 * timer of each one's answer deadline once it has one.
 */
const heldBySocket = new WeakMap<Socket, Map<ReadLease, NodeJS.Timeout | undefined>>();

/** An answer gets the deadline once per this many bytes of it (at least once). */
const DEADLINE_BYTES = 16 * 1_048_576;

/**
 * Releases a read's share of the node's read memory when its answer has been handed to the socket
 * (the response's 'close', which also comes after an error answer or a hang-up mid-answer), or
 * when its connection is gone: a pipelined request whose answer waits behind an unfinished one has
 * no socket of its own, and its response never closes if the connection does first.
 */
export function releaseWhenAnswered(request: FastifyRequest, reply: FastifyReply, lease: ReadLease): void {
  const socket = request.raw.socket as Socket | null;
  if (!socket || socket.destroyed) {
    lease.release();
    return;
  }
  let held = heldBySocket.get(socket);
  if (!held) {
    const onSocket = new Map<ReadLease, NodeJS.Timeout | undefined>();
    held = onSocket;
    heldBySocket.set(socket, onSocket);
    socket.once('close', () => {
      for (const [leased, timer] of onSocket) {
        clearTimeout(timer);
        leased.release();
      }
      onSocket.clear();
    });
  }
  const onSocket = held;
  onSocket.set(lease, undefined);
  reply.raw.once('close', () => {
    clearTimeout(onSocket.get(lease));
    onSocket.delete(lease);
    lease.release();
  });
}

/**
 * Closes the connection of an answer of `bytes` that holds read memory and has not been taken
 * within `timeoutMs` per 16 MiB of it (at least once; with the default 60 s, a client reading at
 * 280 KB/s or more gets every answer): a client that stops reading would otherwise keep its share,
 * and other large reads refused, for as long as it likes (no server timeout applies once a
 * request has arrived).
 */
export function limitAnswerTime(request: FastifyRequest, timeoutMs: number, bytes: number): void {
  const lease = request.readLease;
  const socket = request.raw.socket as Socket | null;
  // app.inject's requests have a stand-in socket that cannot be destroyed (and answers at once).
  if (!lease || lease.holding === 0 || typeof socket?.destroy !== 'function') return;
  const held = heldBySocket.get(socket);
  if (!held?.has(lease)) return;
  const timer = setTimeout(() => socket.destroy(), timeoutMs * Math.max(1, bytes / DEADLINE_BYTES));
  timer.unref();
  held.set(lease, timer);
}
