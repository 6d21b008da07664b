// The colour theme: light, dark, or whatever the system prefers, remembered in localStorage and set as
// `data-theme` on the root element, which the stylesheets key their palettes on. Applied by the entry
// point before the first render: the page's policy allows no inline script that could do it earlier.

export type ThemeChoice = 'system' | 'light' | 'dark';

export const THEME_CHOICES: readonly ThemeChoice[] = ['system', 'light', 'dark'];
export const THEME_KEY = 'cairn.theme';

const isChoice = (v: unknown): v is ThemeChoice => THEME_CHOICES.includes(v as ThemeChoice);

export function storedTheme(): ThemeChoice {
  try {
    const v = window.localStorage.getItem(THEME_KEY);
    return isChoice(v) ? v : 'system';
  } catch {
    // Storage refused (a privacy mode): the system decides.
    return 'system';
  }
}

const systemDark = (): MediaQueryList => window.matchMedia('(prefers-color-scheme: dark)');

/** Sets the root's theme to the choice, resolving "system" against the system's preference now. */
export function applyTheme(choice: ThemeChoice): void {
  const dark = choice === 'dark' || (choice === 'system' && systemDark().matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
  document.documentElement.dataset.themeChoice = choice;
}

export function chooseTheme(choice: ThemeChoice): void {
  try {
    window.localStorage.setItem(THEME_KEY, choice);
  } catch {
    // Not remembered, but still applied to this page.
  }
  applyTheme(choice);
}

/** Applies the stored choice and keeps "system" following the system while the page is open. */
export function startTheme(): void {
  applyTheme(storedTheme());
  systemDark().addEventListener('change', () => applyTheme(storedTheme()));
}
