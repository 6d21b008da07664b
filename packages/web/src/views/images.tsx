// Images an item had, as thumbnails that open full size. Items carry only a note per image; the bytes
// are read from the item's own record with `transcript_read` when the row is drawn, and drawn only
// through the one data-URL rule (timeline/images.ts).
import type { OpArgs } from '@cairn/protocol';
import { parseJson, type RecordedImage } from '@cairn/transcript/items';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useServices } from '../context.js';
import { imageDataUrl } from '../timeline/images.js';
import { type Item, obj } from '../timeline/item.js';
import { MAIN_LANE } from '../timeline/model.js';
import type { Where } from './raw.js';

type Loaded =
  | { readonly state: 'loading' }
  | { readonly state: 'error'; readonly message: string }
  | { readonly state: 'ready'; readonly images: readonly RecordedImage[] };

// Rows leave the page as they scroll away and come back; the last few records read are kept, so a
// row scrolled back to does not read its record again.
const KEPT = 12;
const kept = new Map<string, RecordedImage[]>();
const keep = (key: string, images: RecordedImage[]): void => {
  kept.delete(key);
  kept.set(key, images);
  if (kept.size > KEPT) kept.delete(kept.keys().next().value!);
};

/** The images `pick` finds in the record `item` was read from. */
function useRecordImages(where: Where, item: Item, pick: (record: unknown) => RecordedImage[]): Loaded {
  const { conn } = useServices();
  const source = obj(item, 'source');
  const offset = typeof source?.offset === 'number' ? source.offset : undefined;
  const length = typeof source?.length === 'number' ? source.length : undefined;
  const key = `${where.agent}/${where.sid}/${where.lane}/${offset}/${item.uuid}/${item.type}`;
  const [loaded, setLoaded] = useState<Loaded>(() => {
    const known = kept.get(key);
    return known ? { state: 'ready', images: known } : { state: 'loading' };
  });
  useEffect(() => {
    if (loaded.state !== 'loading') return;
    if (offset === undefined) {
      setLoaded({ state: 'error', message: 'this item does not say which record it came from' });
      return;
    }
    let live = true;
    const args: Record<string, unknown> = {
      sid: where.sid,
      agent: where.agent,
      after: offset,
      max_bytes: Math.max(1, length ?? 1),
    };
    if (where.lane !== MAIN_LANE) args.agent_id = where.lane;
    void conn.request('transcript_read', args as OpArgs<'transcript_read'>).then((reply) => {
      if (!live) return;
      if (!reply.ok) {
        setLoaded({ state: 'error', message: reply.error.message });
        return;
      }
      let images: RecordedImage[] = [];
      try {
        images = pick(parseJson(reply.value.lines[0] ?? ''));
      } catch {
        // A record that does not parse holds no image anyone could draw.
      }
      keep(key, images);
      setLoaded({ state: 'ready', images });
    });
    return () => {
      live = false;
    };
  }, [key]);
  return loaded;
}

/**
 * Thumbnails of the images noted on an item (`notes`, one per image), read from its record. An image
 * that cannot be drawn (not a safe type, not base64, too big, or absent from the record) shows as its
 * note, with why.
 */
export function RecordImages({
  where,
  item,
  notes,
  pick,
  label,
}: {
  where: Where;
  item: Item;
  notes: readonly string[];
  pick: (record: unknown) => RecordedImage[];
  /** What the images belong to, for their names: `prompt image`, `result image`. */
  label: string;
}) {
  const loaded = useRecordImages(where, item, pick);
  const [shown, setShown] = useState<{ url: string; name: string } | undefined>(undefined);
  return (
    <div class="record-images">
      {notes.map((note, i) => {
        const name = `${label} ${i + 1} ${note}`;
        if (loaded.state === 'loading')
          return (
            <span key={i} class="image-note muted small">
              {note} · reading…
            </span>
          );
        const image = loaded.state === 'ready' ? loaded.images[i] : undefined;
        const source = image
          ? imageDataUrl(image)
          : {
              ok: false as const,
              reason: loaded.state === 'error' ? loaded.message : 'the record holds no such image',
            };
        if (!source.ok)
          return (
            <span key={i} class="image-note muted small" title={source.reason}>
              {note} · {source.reason}
            </span>
          );
        return (
          <button
            key={i}
            type="button"
            class="image-thumb"
            title={`open ${name} full size`}
            aria-label={`open ${name} full size`}
            onClick={() => setShown({ url: source.url, name })}
          >
            <img src={source.url} alt={name} decoding="async" />
          </button>
        );
      })}
      {shown && <ImageDialog url={shown.url} name={shown.name} onClose={() => setShown(undefined)} />}
    </div>
  );
}

/** One image at full size, in a modal dialog that Escape or its close button closes. */
function ImageDialog({ url, name, onClose }: { url: string; name: string; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (!dialog.open) dialog.showModal();
    const closed = () => onClose();
    dialog.addEventListener('close', closed);
    return () => dialog.removeEventListener('close', closed);
  }, []);
  return (
    <dialog ref={ref} class="image-dialog" aria-label={name}>
      <div class="image-dialog-head">
        <span class="muted small">{name}</span>
        <button type="button" class="link" onClick={() => ref.current?.close()}>
          close
        </button>
      </div>
      <img src={url} alt={name} />
    </dialog>
  );
}
