import type { ComponentChildren, JSX } from 'preact';

/**
 * A box that scrolls sideways when its content (a table, JSON) is wider than the screen. It takes
 * keyboard focus, so arrow keys scroll it, and is a named region, so a screen reader says what
 * gained focus (axe `scrollable-region-focusable`).
 */
export function ScrollRegion({
  label,
  children,
  class: extra,
}: {
  label: string;
  children: ComponentChildren;
  class?: string;
}): JSX.Element {
  return (
    <div
      class={extra === undefined ? 'table-wrap' : `table-wrap ${extra}`}
      tabIndex={0}
      role="region"
      aria-label={label}
    >
      {children}
    </div>
  );
}
