// Raw HTTP over a TCP socket, for request lines and headers that fetch would refuse to send
// (a bad Host, no Host, `GET *`, absolute-form targets, garbage, HTTP/1.0). Resolves with what the server wrote.
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import type { Server } from 'node:http';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Everything the server sent, as text. */
  raw: string;
}

function dechunk(body: string): string {
  let out = '';
  for (let at = 0; at < body.length; ) {
    const lineEnd = body.indexOf('\r\n', at);
    const size = Number.parseInt(body.slice(at, lineEnd), 16);
    if (!size) break;
    out += body.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
  return out;
}

/** Sends `head` (request line and headers, CRLF-separated, without the final blank line) and reads until the server closes or a full response arrived. */
export function rawRequest(server: Server, head: string): Promise<RawResponse> {
  return rawExchange(server, `${head}\r\nConnection: close\r\n\r\n`);
}

/** Sends exactly `bytes` (nothing added) and reads until the server closes or a full response arrived. */
export function rawExchange(server: Server, bytes: string): Promise<RawResponse> {
  const { port, address } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const socket = connect(port, address);
    let raw = '';
    const finish = () => {
      socket.destroy();
      const [top = '', ...rest] = raw.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = top.split('\r\n');
      const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      const body = rest.join('\r\n\r\n');
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: headers['transfer-encoding'] === 'chunked' ? dechunk(body) : body, raw });
    };
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      raw += chunk;
      // A response with a Content-Length is complete once that many body bytes arrived.
      const end = raw.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(raw.slice(0, end));
      if (end >= 0 && length && raw.length - end - 4 >= Number(length[1])) finish();
    });
    socket.on('end', finish);
    socket.on('error', reject);
    socket.write(bytes);
  });
}
