// Entry point: the theme first (before anything is drawn), then one connection per tab, the session
// directory, and the app.
import { render } from 'preact';
import { App } from './app.js';
import { Connection, setPageToken, socketUrl, TOKEN_KEY, takeToken } from './rpc.js';
import { Directory } from './sessions/directory.js';
import { startTheme } from './theme.js';

startTheme();

let storage: Storage | undefined;
try {
  storage = window.localStorage;
} catch {
  storage = undefined;
}
const first = takeToken(window.location, storage, window.history);
/** The token kept in storage now (a tab opened later may have stored a newer one), else this page's. */
const token = (): string | undefined => {
  try {
    return storage?.getItem(TOKEN_KEY) ?? first;
  } catch {
    return first;
  }
};
setPageToken(token);
const conn = new Connection(socketUrl(window.location), token);
const directory = new Directory(conn);
directory.start();

const root = document.getElementById('app');
if (root) render(<App conn={conn} directory={directory} />, root);
