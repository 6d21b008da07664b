// Entry point: one connection per tab, the session directory, and the app.
import { render } from 'preact';
import { App } from './app.js';
import { Connection, socketUrl } from './rpc.js';
import { Directory } from './sessions/directory.js';

const conn = new Connection(socketUrl(window.location));
const directory = new Directory(conn);
directory.start();

const root = document.getElementById('app');
if (root) render(<App conn={conn} directory={directory} />, root);
