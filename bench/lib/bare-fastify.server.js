// The baseline: a bare Fastify app in a process of its own, with the same logger level as the
// measured server. `/` returns a small constant; `/record` returns BENCH_RECORD (a constant as
// large as a real index record) to show how much of a GET is just the size of its answer.
// Prints `listening on <url>` like searchplane.
import Fastify from 'fastify';

const level = process.env.LOG_LEVEL ?? 'warn';
const record = process.env.BENCH_RECORD ?? '{}';
const app = Fastify({ logger: level === 'silent' ? false : { level } });
app.get('/', async () => ({ status: 'ok' }));
app.get('/record', async (_request, reply) => reply.type('application/json; charset=utf-8').send(record));
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`bare fastify listening on ${url}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
