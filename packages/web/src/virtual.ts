// A Preact binding for @tanstack/virtual-core: only the rows in view (plus a margin) are in the DOM,
// measured as they render, so a timeline of tens of thousands of items scrolls like a short one.
import {
  elementScroll,
  observeElementOffset,
  observeElementRect,
  Virtualizer,
  type VirtualizerOptions,
} from '@tanstack/virtual-core';
import { useLayoutEffect, useReducer, useState } from 'preact/hooks';

export interface VirtualListOptions {
  readonly count: number;
  readonly getScrollElement: () => HTMLElement | null;
  readonly estimateSize: (index: number) => number;
  readonly getItemKey: (index: number) => string | number;
  readonly overscan?: number;
}

export function useVirtualizer(options: VirtualListOptions): Virtualizer<HTMLElement, HTMLElement> {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const resolved: VirtualizerOptions<HTMLElement, HTMLElement> = {
    observeElementRect,
    observeElementOffset,
    scrollToFn: elementScroll,
    overscan: options.overscan ?? 6,
    count: options.count,
    getScrollElement: options.getScrollElement,
    estimateSize: options.estimateSize,
    getItemKey: options.getItemKey,
    onChange: () => rerender(0),
    // The list fills most of the window: assuming so draws the first rows in the first render
    // instead of one frame later, when the element is measured.
    initialRect: { width: window.innerWidth, height: window.innerHeight },
  };
  const [instance] = useState(() => new Virtualizer<HTMLElement, HTMLElement>(resolved));
  instance.setOptions(resolved);
  useLayoutEffect(() => instance._didMount(), [instance]);
  useLayoutEffect(() => {
    instance._willUpdate();
  });
  return instance;
}
