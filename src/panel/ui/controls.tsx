import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';

/** A labelled form control with help text tied to it by aria-describedby. */
export function Field({
  label,
  help,
  children,
}: {
  label: string;
  help?: string | undefined;
  children: (ids: { id: string; describedBy: string | undefined }) => ComponentChildren;
}): JSX.Element {
  const id = useId();
  const helpId = `${id}-help`;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children({ id, describedBy: help ? helpId : undefined })}
      {help && (
        <small id={helpId} class="help">
          {help}
        </small>
      )}
    </div>
  );
}

/**
 * A button that asks first, in a modal <dialog> (focus moves into it and returns; Escape cancels).
 */
export function ConfirmButton({
  label,
  question,
  confirmLabel,
  danger = true,
  onConfirm,
}: {
  label: string;
  question: string;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => void | Promise<void>;
}): JSX.Element {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [busy, setBusy] = useState(false);
  const confirm = async () => {
    setBusy(true);
    try {
      await onConfirm();
    } finally {
      setBusy(false);
      dialog.current?.close();
    }
  };
  return (
    <>
      <button type="button" class={danger ? 'danger' : ''} onClick={() => dialog.current?.showModal()}>
        {label}
      </button>
      <dialog ref={dialog} aria-labelledby={titleId} class="confirm">
        <p id={titleId}>{question}</p>
        <div class="row">
          <button type="button" class={danger ? 'danger' : 'primary'} disabled={busy} onClick={() => void confirm()}>
            {confirmLabel}
          </button>
          <button type="button" autofocus onClick={() => dialog.current?.close()}>
            Cancel
          </button>
        </div>
      </dialog>
    </>
  );
}

/** Copies `text` to the clipboard and says so (politely, for screen readers). */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }): JSX.Element {
  const [said, setSaid] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setSaid('Copied to the clipboard.');
    } catch (err) {
      setSaid(`Could not copy (${err instanceof Error ? err.message : String(err)}); select the text and copy it.`);
    }
  };
  return (
    <>
      <button type="button" onClick={() => void copy()}>
        {label}
      </button>
      <span role="status" class="copy-status">
        {said}
      </span>
    </>
  );
}

/** A section heading that takes focus when a view opens, so screen readers announce the new page. */
export function PageTitle({ children }: { children: ComponentChildren }): JSX.Element {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus({ preventScroll: true }), []);
  return (
    <h1 tabIndex={-1} class="page-title" ref={ref}>
      {children}
    </h1>
  );
}
