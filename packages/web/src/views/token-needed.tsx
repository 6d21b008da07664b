// What the page shows when the server does not take its token (the address was opened without one,
// or the daemon was restarted with a new one): what to do, in full, instead of a view that waits
// forever. The token can be pasted here, alone or as the whole address `cairn url` prints.
import { useState } from 'preact/hooks';
import { TOKEN_KEY } from '../rpc.js';

/** The token in what was pasted: an address with `?token=…`, or the token itself. */
export function tokenFromPaste(pasted: string): string | undefined {
  const text = pasted.trim();
  if (text === '') return undefined;
  if (/^https?:\/\//i.test(text)) {
    try {
      return new URL(text).searchParams.get('token') ?? undefined;
    } catch {
      return undefined;
    }
  }
  return /^[A-Za-z0-9._~-]+$/.test(text) ? text : undefined;
}

export function TokenNeeded({ hadToken }: { hadToken: boolean }) {
  const [pasted, setPasted] = useState('');
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const use = (e: Event) => {
    e.preventDefault();
    const token = tokenFromPaste(pasted);
    if (!token) {
      setProblem('That is neither a token nor an address with ?token= in it.');
      return;
    }
    try {
      window.localStorage.setItem(TOKEN_KEY, token);
    } catch {
      setProblem('This browser keeps no storage for the page: open the address `cairn url` prints instead.');
      return;
    }
    // The connection reads the stored token on its next socket; a reload makes that now.
    window.location.reload();
  };
  return (
    <section class="token-needed pad" aria-labelledby="token-needed-title">
      <h1 id="token-needed-title">This page needs cairn’s token</h1>
      <p>
        {hadToken
          ? 'The cairn server no longer takes the token this page kept: it was restarted with a new one.'
          : 'The address was opened without its token, so the cairn server does not answer this page.'}
      </p>
      <p>
        Run <code>cairn url</code> in a terminal and open the address it prints. It carries the token; the
        page keeps it and takes it out of the address bar.
      </p>
      <form class="token-form" onSubmit={use}>
        <label for="token-paste">Or paste the token, or that address, here:</label>
        <div class="token-row">
          <input
            id="token-paste"
            name="token"
            type="password"
            autocomplete="off"
            spellcheck={false}
            value={pasted}
            onInput={(e) => {
              setPasted(e.currentTarget.value);
              setProblem(undefined);
            }}
          />
          <button type="submit" class="primary">
            Use it
          </button>
        </div>
        {problem && <p class="error">{problem}</p>}
      </form>
    </section>
  );
}
