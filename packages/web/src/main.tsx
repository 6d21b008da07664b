// Entry point: one connection per tab, the session directory, and the app.
import { render } from 'preact';
import { App } from './app.js';
import { Connection, socketUrl, takeToken, usePageToken } from './rpc.js';
import { Directory } from './sessions/directory.js';

let storage: Storage | undefined;
try {
  storage = window.localStorage;
} catch {
  storage = undefined;
}
const token = takeToken(window.location, storage, window.history);
usePageToken(token);
const conn = new Connection(socketUrl(window.location), token);
const directory = new Directory(conn);
directory.start();

const root = document.getElementById('app');
if (root) render(<App conn={conn} directory={directory} />, root);
