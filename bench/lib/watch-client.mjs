/**
 * Many watchers in one process (a child of the bench, driven over IPC): raw TCP or TLS sockets,
 * each sending one `GET ...?watch=true` and reading the chunked stream without an HTTP client
 * or a JSON parser, so the watchers cost little CPU next to the server they measure.
 *
 * An event the bench cares about carries the annotation `bench.hcc.dev/sent: "<epoch ms>"`
 * (the writer's send time). Every watcher counts those markers; every `sampleEvery`-th watcher
 * also records, per event, arrival time − send time (delivery latency, ms). Marker counting is
 * exact because the control center writes one JSON line per event and escapes nothing in it.
 *
 * argv[2]: JSON { host, port, tls, ca (PEM), headers, path, count, sampleEvery }
 * IPC in:  { cmd: 'reset' } | { cmd: 'report' } | { cmd: 'close' }
 * IPC out: { type: 'ready', opened } after every watcher got its 200; { type: 'reset' };
 *          { type: 'report', events, perWatcher: {min,max}, latency: summary, closed, cpuMs }
 */
import net from 'node:net';
import tls from 'node:tls';
import { summarize, Samples } from './stats.mjs';

const cfg = JSON.parse(process.argv[2]);
const MARKER = Buffer.from('"bench.hcc.dev/sent":"');
const NL = 0x0a;
const nowMs = () => performance.timeOrigin + performance.now();

let latencies = new Samples();
const watchers = [];
let closed = 0;

function open(index) {
  return new Promise((resolve, reject) => {
    const sock = cfg.tls
      ? tls.connect({ host: cfg.host, port: cfg.port, ca: cfg.ca, servername: cfg.host === '127.0.0.1' ? undefined : cfg.host })
      : net.connect({ host: cfg.host, port: cfg.port });
    const w = { index, sock, events: 0, sampled: index % cfg.sampleEvery === 0, pending: null, ok: false };
    const hdrs = Object.entries(cfg.headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    sock.once(cfg.tls ? 'secureConnect' : 'connect', () => {
      sock.write(`GET ${cfg.path} HTTP/1.1\r\nHost: ${cfg.host}:${cfg.port}\r\n${hdrs}\r\n`);
    });
    sock.on('data', (chunk) => {
      if (!w.ok) {
        const head = chunk.toString('latin1', 0, Math.min(chunk.length, 64));
        if (!head.startsWith('HTTP/1.1 200')) {
          reject(new Error(`watch ${index}: ${head.split('\r\n')[0]}`));
          sock.destroy();
          return;
        }
        w.ok = true;
        resolve(w);
      }
      scan(w, chunk);
    });
    sock.on('error', (err) => {
      if (!w.ok) reject(err);
    });
    sock.on('close', () => {
      closed++;
      w.closed = true;
    });
    watchers.push(w);
  });
}

/** Counts markers in complete lines; keeps the partial last line for the next chunk. */
function scan(w, chunk) {
  let buf = w.pending ? Buffer.concat([w.pending, chunk]) : chunk;
  const end = buf.lastIndexOf(NL);
  if (end < 0) {
    w.pending = buf;
    return;
  }
  const arrived = w.sampled ? nowMs() : 0;
  let i = buf.indexOf(MARKER);
  while (i >= 0 && i < end) {
    w.events++;
    const start = i + MARKER.length;
    if (w.sampled) {
      const q = buf.indexOf(0x22, start); // closing quote
      latencies.push(arrived - Number(buf.toString('latin1', start, q)));
    }
    i = buf.indexOf(MARKER, start);
  }
  w.pending = end + 1 < buf.length ? Buffer.from(buf.subarray(end + 1)) : null;
}

const cpu0 = process.cpuUsage();
try {
  // Open in waves so the server is not handed 1,000 TLS handshakes at once.
  for (let i = 0; i < cfg.count; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, cfg.count - i) }, (_, k) => open(i + k)));
  }
  process.send({ type: 'ready', opened: watchers.length });
} catch (err) {
  process.send({ type: 'error', message: err.message });
  process.exit(1);
}

let cpuMark = process.cpuUsage();
process.on('message', (m) => {
  if (m.cmd === 'reset') {
    for (const w of watchers) w.events = 0;
    latencies = new Samples();
    cpuMark = process.cpuUsage();
    process.send({ type: 'reset' });
  } else if (m.cmd === 'report') {
    let events = 0;
    let min = Infinity;
    let max = 0;
    for (const w of watchers) {
      events += w.events;
      min = Math.min(min, w.events);
      max = Math.max(max, w.events);
    }
    const c = process.cpuUsage(cpuMark);
    process.send({ type: 'report', events, perWatcher: { min, max }, latency: summarize(latencies), closed, cpuMs: (c.user + c.system) / 1000 });
  } else if (m.cmd === 'close') {
    for (const w of watchers) w.sock.destroy();
    process.exit(0);
  }
});
process.on('disconnect', () => process.exit(0));
void cpu0;
