import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ReadLease } from '../../services/data-plane/index.js';

/** The leases of the requests on each connection (several while requests are pipelined). */
const leasesBySocket = new WeakMap<Socket, Set<ReadLease>>();

/**
 * Releases a read's share of the node's read memory when its answer has been handed to the socket
 * (the response's 'close', which also comes after an error answer or a hang-up mid-answer), or
 * when its connection is gone: a pipelined request whose answer waits behind an unfinished one has
 * no socket of its own, and its response never closes if the connection does first.
 */
export function releaseWhenAnswered(request: FastifyRequest, reply: FastifyReply, lease: ReadLease): void {
  const socket = request.raw.socket as Socket | null;
  // app.inject's requests have no real socket; their responses close once answered.
  if (!socket || typeof socket.once !== 'function') {
    reply.raw.once('close', lease.release);
    return;
  }
  if (socket.destroyed) {
    lease.release();
    return;
  }
  let leases = leasesBySocket.get(socket);
  if (!leases) {
    const onSocket = new Set<ReadLease>();
    leases = onSocket;
    leasesBySocket.set(socket, onSocket);
    socket.once('close', () => {
      for (const held of onSocket) held.release();
      onSocket.clear();
    });
  }
  const onSocket = leases;
  onSocket.add(lease);
  reply.raw.once('close', () => {
    lease.release();
    onSocket.delete(lease);
  });
}

/**
 * Closes the connection of an answer that holds read memory and has not been taken within
 * `timeoutMs`: a client that stops reading would otherwise keep its share, and other large reads
 * refused, for as long as it likes (no server timeout applies once a request has arrived).
 */
export function limitAnswerTime(request: FastifyRequest, reply: FastifyReply, timeoutMs: number): void {
  if (!request.readLease || request.readLease.holding === 0) return;
  const timer = setTimeout(() => request.raw.socket?.destroy(), timeoutMs);
  timer.unref();
  reply.raw.once('close', () => clearTimeout(timer));
}
