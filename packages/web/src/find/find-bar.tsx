// The find-in-session bar: what to find, which match of how many, previous / next, and close.
import { useEffect, useRef } from 'preact/hooks';

export interface FindBarProps {
  readonly query: string;
  readonly count: number;
  /** The match shown, from 0; -1 before the first is chosen. */
  readonly current: number;
  /** Grows each time the bar is asked to open, so it takes the focus again. */
  readonly focusSignal: number;
  onQuery(query: string): void;
  onNext(): void;
  onPrevious(): void;
  onClose(): void;
}

export function FindBar(props: FindBarProps) {
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, [props.focusSignal]);
  const { query, count, current } = props;
  const status =
    query.trim() === '' ? '' : count === 0 ? 'no match' : `${current < 0 ? 0 : current + 1} of ${count}`;
  return (
    <search class="find-bar" aria-label="Find in this session">
      <input
        ref={input}
        type="search"
        class="find-input"
        placeholder="Find in this session"
        aria-label="Find in this session"
        value={query}
        onInput={(e) => props.onQuery(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            if (e.shiftKey) props.onPrevious();
            else props.onNext();
          } else if (e.key === 'Escape') {
            e.preventDefault();
            props.onClose();
          }
        }}
      />
      <span class="find-status muted small" role="status" aria-live="polite">
        {status}
      </span>
      <button
        type="button"
        class="find-prev"
        onClick={props.onPrevious}
        disabled={count === 0}
        aria-label="Previous match"
        title="Previous match (Shift+Enter)"
      >
        ↑
      </button>
      <button
        type="button"
        class="find-next"
        onClick={props.onNext}
        disabled={count === 0}
        aria-label="Next match"
        title="Next match (Enter)"
      >
        ↓
      </button>
      <button
        type="button"
        class="find-close"
        onClick={props.onClose}
        aria-label="Close find"
        title="Close (Escape)"
      >
        ✕
      </button>
    </search>
  );
}
