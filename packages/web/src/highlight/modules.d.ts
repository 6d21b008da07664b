// highlight.js ships no declarations for its single-language modules; each is a language definition.
declare module 'highlight.js/lib/languages/*' {
  import type { LanguageFn } from 'highlight.js';

  const language: LanguageFn;
  export default language;
}
