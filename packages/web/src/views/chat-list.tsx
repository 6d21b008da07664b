// The person's chats, newest first, each with what they may do to cairn's record of it: rename,
// archive (out of this list, into "Archived") and delete after a confirm. Nothing here touches the
// agent's own session files.
import { useEffect, useState } from 'preact/hooks';
import { archiveChatSession, deleteChatSession, listChatSessions, renameChatSession } from '../chat/api.js';
import type { ChatSessionSummary } from '../chat/wire.js';
import { shownText } from '../display.js';
import { chatHref } from '../route.js';

export function ChatList() {
  const [archived, setArchived] = useState(false);
  const [chats, setChats] = useState<ChatSessionSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = async (showArchived: boolean) => {
    const r = await listChatSessions(undefined, showArchived);
    if (!r.ok) return setError(r.error);
    setError(null);
    setChats(r.value);
  };
  useEffect(() => {
    void load(archived);
  }, [archived]);

  return (
    <section class="chat-list" aria-label="Your chats">
      <div class="chat-list-head">
        <h2>Your chats</h2>
        <div class="chat-list-filter">
          <button type="button" class="small" aria-pressed={!archived} onClick={() => setArchived(false)}>
            Chats
          </button>
          <button type="button" class="small" aria-pressed={archived} onClick={() => setArchived(true)}>
            Archived
          </button>
        </div>
      </div>
      {error && (
        <p class="err-text small" role="alert">
          {error}
        </p>
      )}
      {chats !== null && chats.length === 0 && (
        <p class="muted small">{archived ? 'No archived chats.' : 'No chats yet.'}</p>
      )}
      {chats !== null && chats.length > 0 && (
        <ul class="chat-list-rows">
          {chats.map((chat) => (
            <ChatRow
              key={chat.id}
              chat={chat}
              onChanged={() => load(archived)}
              onError={(message) => setError(message)}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

function ChatRow({
  chat,
  onChanged,
  onError,
}: {
  chat: ChatSessionSummary;
  onChanged: () => Promise<void>;
  onError: (message: string) => void;
}) {
  const [mode, setMode] = useState<'view' | 'rename' | 'confirm-delete'>('view');
  const [draft, setDraft] = useState(chat.title);
  const [working, setWorking] = useState(false);

  /** Runs one request; the list is read again when it succeeded, its words shown when not. */
  const act = async (request: () => Promise<{ ok: true } | { ok: false; error: string }>) => {
    setWorking(true);
    const r = await request();
    setWorking(false);
    if (!r.ok) return onError(r.error);
    setMode('view');
    await onChanged();
  };

  const title = shownText(chat.title);
  return (
    <li class="chat-row" data-chat={chat.id}>
      {mode === 'rename' ? (
        <form
          class="chat-rename"
          aria-label="Rename chat"
          onSubmit={(e) => {
            e.preventDefault();
            void act(() => renameChatSession(chat.id, draft));
          }}
        >
          <input
            name="title"
            aria-label="Chat title"
            value={draft}
            maxLength={200}
            onInput={(e) => setDraft(e.currentTarget.value)}
          />
          <button type="submit" class="small" disabled={working || draft.trim() === ''}>
            Save
          </button>
          <button type="button" class="small" onClick={() => setMode('view')}>
            Cancel
          </button>
        </form>
      ) : (
        <a class="chat-row-title" href={chatHref(chat.id)} title={title}>
          {title}
        </a>
      )}
      <span class="muted small"> {chat.agent}</span>
      {mode === 'confirm-delete' ? (
        <span class="chat-row-actions" role="alert">
          <span class="small">Delete this chat from cairn? The agent's own session files stay.</span>
          <button
            type="button"
            class="small danger"
            disabled={working}
            onClick={() => void act(() => deleteChatSession(chat.id))}
          >
            Delete
          </button>
          <button type="button" class="small" onClick={() => setMode('view')}>
            Keep
          </button>
        </span>
      ) : (
        mode === 'view' && (
          <span class="chat-row-actions">
            <button
              type="button"
              class="small"
              onClick={() => {
                setDraft(chat.title);
                setMode('rename');
              }}
            >
              Rename
            </button>
            <button
              type="button"
              class="small"
              disabled={working}
              onClick={() => void act(() => archiveChatSession(chat.id, !chat.archived))}
            >
              {chat.archived ? 'Unarchive' : 'Archive'}
            </button>
            <button type="button" class="small" onClick={() => setMode('confirm-delete')}>
              Delete…
            </button>
          </span>
        )
      )}
    </li>
  );
}
