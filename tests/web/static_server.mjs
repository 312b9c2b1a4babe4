// A tiny static file server for the built page (scripts/serve.sh and the browser tests).
// Serves one folder on 127.0.0.1 only, with the MIME types the page needs (application/wasm
// lets the browser compile while downloading) and gzip when the client accepts it.
// Usage: node tests/web/static_server.mjs <folder> [port]   (port 0 picks a free one)
// As a module: const {start} = await import(...); const srv = await start(dir, 0); srv.port
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript',
  '.wasm': 'application/wasm', '.json': 'application/json', '.css': 'text/css', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.ico': 'image/x-icon', '.txt': 'text/plain; charset=utf-8',
};

// gzip output per file, reused while the file is unchanged (level 9 costs ~0.1 s per MB).
const gzCache = new Map();
function gzipped(file, data) {
  const mtime = fs.statSync(file).mtimeMs, hit = gzCache.get(file);
  if (hit && hit.mtime === mtime) return hit.data;
  const z = zlib.gzipSync(data, { level: 9 });
  gzCache.set(file, { mtime, data: z });
  return z;
}

export function start(root, port = 0) {
  root = path.resolve(root);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    let rel;
    try { rel = decodeURIComponent(url.pathname); } catch { res.writeHead(400).end(); return; }
    let file = path.normalize(path.join(root, rel));
    if (!file.startsWith(root)) { res.writeHead(403).end(); return; }
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
    fs.readFile(file, (err, data) => {
      if (err) { res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found'); return; }
      const headers = { 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream', 'Cache-Control': 'no-cache' };
      if (/\bgzip\b/.test(req.headers['accept-encoding'] || '')) {
        headers['Content-Encoding'] = 'gzip';
        data = gzipped(file, data);
      }
      headers['Content-Length'] = data.length;
      res.writeHead(200, headers).end(data);
    });
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => {
    resolve({ server, port: server.address().port, close: () => new Promise((r) => server.close(r)) });
  }));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [dir, port] = process.argv.slice(2);
  if (!dir) { console.error('usage: node static_server.mjs <folder> [port]'); process.exit(2); }
  const srv = await start(dir, Number(port || 8080));
  console.log(`llmsize: serving ${path.resolve(dir)} at http://127.0.0.1:${srv.port}/`);
}
