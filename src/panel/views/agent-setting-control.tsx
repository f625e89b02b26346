import type { JSX } from 'preact';
import type { PropertyInfo } from '../api/schema.js';
import type { Preset } from '../api/types.js';

/**
 * The form control of one agent setting, picked by its schema: the preset picker, a checkbox, a
 * select of the enum, a number, a list (one word or phrase a line), JSON, long or short text.
 */
export function settingControl(
  p: PropertyInfo,
  value: string | boolean,
  set: (name: string, value: string | boolean) => void,
  o: { id: string; describedBy: string | undefined; invalid: boolean; presets: Preset[]; form: string },
): JSX.Element {
  const common = {
    id: o.id,
    name: p.name,
    form: o.form,
    'aria-describedby': o.describedBy,
    'aria-invalid': o.invalid || undefined,
  };
  if (p.name === 'preset_id') {
    return (
      <select {...common} value={String(value)} onChange={(e) => set(p.name, e.currentTarget.value)}>
        <option value="">Built-in default</option>
        {o.presets.map((preset) => (
          <option key={preset.id} value={preset.id}>
            {preset.name}
          </option>
        ))}
        {value !== '' && !o.presets.some((x) => x.id === value) && (
          <option value={String(value)}>{String(value)}</option>
        )}
      </select>
    );
  }
  if (p.type === 'boolean') {
    return (
      <input
        {...common}
        type="checkbox"
        checked={value === true}
        onChange={(e) => set(p.name, e.currentTarget.checked)}
      />
    );
  }
  if (p.enum !== undefined) {
    return (
      <select {...common} value={String(value)} onChange={(e) => set(p.name, e.currentTarget.value)}>
        {p.enum.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    );
  }
  if (p.type === 'number' || p.type === 'integer') {
    return (
      <input
        {...common}
        type="number"
        inputMode="decimal"
        step={p.type === 'integer' ? 1 : 'any'}
        min={p.minimum}
        max={p.maximum}
        value={String(value)}
        onInput={(e) => set(p.name, e.currentTarget.value)}
      />
    );
  }
  if (p.type === 'list') {
    return (
      <textarea
        {...common}
        rows={Math.min(8, Math.max(3, String(value).split('\n').length + 1))}
        spellcheck={false}
        value={String(value)}
        onInput={(e) => set(p.name, e.currentTarget.value)}
      />
    );
  }
  if (p.type === 'object' || ((p.maxLength ?? 0) >= 2000 && !p.name.endsWith('_url'))) {
    return (
      <textarea
        {...common}
        rows={p.type === 'object' ? 4 : 5}
        value={String(value)}
        onInput={(e) => set(p.name, e.currentTarget.value)}
      />
    );
  }
  const onInput = (e: { currentTarget: HTMLInputElement }) => set(p.name, e.currentTarget.value);
  if (p.name === 'webhook_api_key') {
    return <input {...common} type="password" autocomplete="new-password" value={String(value)} onInput={onInput} />;
  }
  if (p.name.endsWith('_url')) {
    return <input {...common} type="url" autocomplete="off" value={String(value)} onInput={onInput} />;
  }
  return (
    <input {...common} type="text" autocomplete="off" maxLength={p.maxLength} value={String(value)} onInput={onInput} />
  );
}
