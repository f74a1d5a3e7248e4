/**
 * Many watchers in one process (a child of the bench, driven over IPC): raw TCP or TLS sockets,
 * each sending one `GET ...?watch=true` and reading the chunked stream without an HTTP client
 * or a JSON parser, so the watchers cost little CPU next to the server they measure.
 *
 * An event the bench cares about carries the annotation `bench.hcc.dev/sent: "<epoch ms>"`
 * (the writer's send time). Every watcher counts those markers; every `sampleEvery`-th watcher
 * also records, per event, arrival time − send time (delivery latency, ms). Marker counting is
 * exact: each event line holds one marker (its text cannot occur elsewhere: JSON escapes quotes
 * inside strings), and an event counts when its line has ended, however the reads cut it (scan()).
 *
 * argv[2]: JSON { host, port, tls, ca (PEM), headers, path, count, sampleEvery }
 * IPC in:  { cmd: 'reset' } | { cmd: 'report', expected } | { cmd: 'close' }
 * IPC out: { type: 'ready', opened } after every watcher got its 200; { type: 'reset' };
 *          { type: 'report', events, missing, duplicates, perWatcher: {min,max}, latency: summary, closed, cpuMs }
 *          (missing and duplicates counted per watcher against `expected` events each: delivery.mjs)
 */
import net from 'node:net';
import tls from 'node:tls';
import { deliveryCounts } from './delivery.mjs';
import { summarize, Samples } from './stats.mjs';

const cfg = JSON.parse(process.argv[2]);
const MARKER = Buffer.from('"bench.hcc.dev/sent":"');
const nowMs = () => performance.timeOrigin + performance.now();

let latencies = new Samples();
const watchers = [];
let closed = 0;

/** The read buffer of every watcher (reads are handled one at a time, synchronously). */
const readBuffer = Buffer.alloc(256 * 1024);

function open(index) {
  return new Promise((resolve, reject) => {
    const w = { index, sock: undefined, events: 0, sampled: index % cfg.sampleEvery === 0, carry: null, open: undefined, ok: false };
    const onData = (chunk) => {
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
    };
    // Every socket reads into one shared buffer (scan() keeps nothing of it but copies), so
    // reading allocates nothing.
    const onread = { buffer: readBuffer, callback: (n, buf) => onData(buf.subarray(0, n)) };
    const sock = cfg.tls
      ? tls.connect({ host: cfg.host, port: cfg.port, ca: cfg.ca, servername: cfg.host === '127.0.0.1' ? undefined : cfg.host, onread })
      : net.connect({ host: cfg.host, port: cfg.port, onread });
    w.sock = sock;
    const hdrs = Object.entries(cfg.headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    sock.once(cfg.tls ? 'secureConnect' : 'connect', () => {
      sock.write(`GET ${cfg.path} HTTP/1.1\r\nHost: ${cfg.host}:${cfg.port}\r\n${hdrs}\r\n`);
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

const NL = 0x0a;
const QUOTE = 0x22;
/** A marker with its value (an epoch-ms timestamp with decimals) and closing quote fits in this many bytes. */
const TAIL = MARKER.length + 40;

/** One event received whole (its line ended): counted, and its latency sampled on sampled watchers. */
function record(w, sent, arrived) {
  w.events++;
  if (w.sampled) latencies.push(arrived - sent);
}

/**
 * Counts the events of a chunk without copying it. Each event line holds one marker; an event
 * counts when its line ends, at the arrival time of the chunk holding that end. A line cut by the
 * end of a chunk is finished in the next one: after its marker, only the marker's value is kept
 * (w.open); a marker itself cut in two is carried (w.carry, at most TAIL bytes).
 */
function scan(w, data) {
  let chunk = data;
  const arrived = w.sampled ? nowMs() : 0;
  let from = 0;
  if (w.open !== undefined) {
    const nl = chunk.indexOf(NL);
    if (nl < 0) return;
    record(w, w.open, arrived);
    w.open = undefined;
    from = nl + 1;
  } else if (w.carry && chunk.length <= TAIL) {
    // A short chunk: scan the carry and it as one.
    chunk = Buffer.concat([w.carry, chunk]);
    w.carry = null;
  } else if (w.carry) {
    const carry = w.carry;
    w.carry = null;
    const joined = Buffer.concat([carry, chunk.subarray(0, TAIL)]);
    const i = joined.indexOf(MARKER);
    if (i >= 0 && i < carry.length) {
      const q = joined.indexOf(QUOTE, i + MARKER.length);
      // The chunk is longer than TAIL, so joined holds the marker's value and closing quote.
      const sent = w.sampled ? Number(joined.toString('latin1', i + MARKER.length, q)) : 0;
      const nl = chunk.indexOf(NL, q + 1 - carry.length);
      if (nl < 0) {
        w.open = sent;
        return;
      }
      record(w, sent, arrived);
      from = nl + 1;
    }
  }
  for (;;) {
    const i = chunk.indexOf(MARKER, from);
    if (i < 0) break;
    const q = chunk.indexOf(QUOTE, i + MARKER.length);
    if (q < 0) {
      w.carry = Buffer.from(chunk.subarray(i));
      return;
    }
    const sent = w.sampled ? Number(chunk.toString('latin1', i + MARKER.length, q)) : 0;
    const nl = chunk.indexOf(NL, q);
    if (nl < 0) {
      w.open = sent;
      return;
    }
    record(w, sent, arrived);
    from = nl + 1;
  }
  // The last bytes may begin a marker.
  const start = Math.max(from, chunk.length - (MARKER.length - 1));
  if (start < chunk.length) w.carry = Buffer.from(chunk.subarray(start));
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
    const { events, missing, duplicates, min, max } = deliveryCounts(watchers.map((w) => w.events), m.expected ?? 0);
    const c = process.cpuUsage(cpuMark);
    process.send({ type: 'report', events, missing, duplicates, perWatcher: { min, max }, latency: summarize(latencies), closed, cpuMs: (c.user + c.system) / 1000 });
  } else if (m.cmd === 'close') {
    for (const w of watchers) w.sock.destroy();
    process.exit(0);
  }
});
process.on('disconnect', () => process.exit(0));
void cpu0;
