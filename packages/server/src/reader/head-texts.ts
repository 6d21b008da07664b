// A session's title and first prompt live in the index, not in the heads the catalog keeps in
// memory: with tens of thousands of sessions they came to half of what the heads held. A page of
// the list, a search's hits or a frame of changed heads reads them for its sessions in one query.
import type { CatalogHead } from './catalog-state.js';

export type { HeadTexts } from '../indexing/index-db.js';

/** The head as memory keeps it: without its title and first prompt. */
export function withoutTexts(head: CatalogHead): CatalogHead {
  // A rest copy, not a delete: an object that loses fields takes several times the memory.
  const { title: _title, firstPrompt: _firstPrompt, ...kept } = head;
  return kept;
}

/** The whole head: memory's, with the texts the index holds of it. */
export function withTexts(
  head: CatalogHead,
  texts: { title?: string | undefined; firstPrompt?: string | undefined } | undefined,
): CatalogHead {
  if (texts?.title === undefined && texts?.firstPrompt === undefined) return head;
  return {
    ...head,
    ...(texts.title !== undefined ? { title: texts.title } : {}),
    ...(texts.firstPrompt !== undefined ? { firstPrompt: texts.firstPrompt } : {}),
  };
}
