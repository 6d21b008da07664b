// What a WebSocket upgrade to a running server gets: 101 when it opens, else the status and body of
// the refusal, for the tests of who and how many a server lets in.
import WebSocket from 'ws';

export interface UpgradeAnswer {
  status: number;
  body: string;
}

/**
 * Asks for an upgrade to `url`. A socket that opens is closed at once, unless `hold` takes it: a
 * test that fills a server's places keeps its sockets open (and closes them itself).
 */
export function upgradeTo(
  url: string,
  options: { headers?: Record<string, string>; protocols?: string[]; hold?: (ws: WebSocket) => void } = {},
): Promise<UpgradeAnswer> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, options.protocols ?? [], { headers: options.headers ?? {} });
    ws.on('error', () => {});
    ws.on('open', () => {
      if (options.hold) options.hold(ws);
      else ws.close();
      resolve({ status: 101, body: '' });
    });
    ws.on('unexpected-response', (req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
  });
}

/** The bearer header a workstation's ticket goes in. */
export const bearer = (ticket: string): Record<string, string> => ({ authorization: `Bearer ${ticket}` });
