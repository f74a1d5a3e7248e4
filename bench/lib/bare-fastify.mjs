/**
 * The HTTP-limit baseline server (a child process of the bench): bare fastify, no logger, one
 * GET route answering a fixed JSON document (a HostedCluster as the control center returns it)
 * and one POST route that parses the JSON body with fastify's default parser and answers 201
 * with the same document. Nothing else: what a request costs with fastify on this machine.
 *
 * Usage: node bare-fastify.mjs <response.json> [<key.pem> <cert.pem>]   (TLS when key and cert are given)
 * Prints one line `{"url":"http(s)://127.0.0.1:PORT"}` when listening; exits on SIGTERM.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { CipherPreference } from '@hcc/control-center';

const [docFile, keyFile, certFile] = process.argv.slice(2);
const doc = readFileSync(docFile, 'utf8');
// The control center's own cipher preference: the same transport, the same cost per byte.
const tls = keyFile && certFile ? { https: { key: readFileSync(keyFile), cert: readFileSync(certFile), ciphers: CipherPreference, honorCipherOrder: true } } : {};
const app = Fastify({ logger: false, ...tls, bodyLimit: 3 * 1024 * 1024, keepAliveTimeout: 120_000 });
app.get('/obj', (_req, reply) => {
  reply.header('content-type', 'application/json').send(doc);
});
app.post('/obj', (req, reply) => {
  if (typeof req.body !== 'object' || req.body === null) return reply.code(400).send({ error: 'not an object' });
  reply.code(201).header('content-type', 'application/json').send(doc);
});
await app.listen({ host: '127.0.0.1', port: 0 });
const { port } = app.server.address();
process.stdout.write(`${JSON.stringify({ url: `${keyFile ? 'https' : 'http'}://127.0.0.1:${port}` })}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
process.on('SIGINT', () => app.close().then(() => process.exit(0)));
