import type { JSX } from 'preact';
import type { Agent, Page } from '../api/types.js';
import { setSearch, useLocation } from '../router.js';
import { Field } from './controls.js';
import { useApi } from './use-api.js';

/** Filter values kept in the URL's query string, so a filtered list can be bookmarked and shared. */
export function useFilters(names: string[]): [Record<string, string>, (name: string, value: string) => void] {
  const { search } = useLocation();
  const values = Object.fromEntries(names.map((n) => [n, search.get(n) ?? '']));
  return [values, (name, value) => setSearch({ ...values, [name]: value })];
}

/** A `date` input's day as the ISO time of its local start (`from`) or end (`to`). */
export function dayBound(day: string, end: boolean): string | undefined {
  if (day === '') return undefined;
  const d = new Date(`${day}T00:00:00`);
  if (end) {
    d.setDate(d.getDate() + 1);
    d.setMilliseconds(-1);
  }
  return d.toISOString();
}

export function AgentFilter(props: { value: string; onChange: (v: string) => void; emptyLabel?: string }): JSX.Element {
  const { value, onChange, emptyLabel = 'All agents' } = props;
  const agents = useApi<Page<Agent>>('/admin/v1/agents?limit=100');
  return (
    <Field label="Agent">
      {({ id }) => (
        <select id={id} name="agent_id" value={value} onChange={(e) => onChange(e.currentTarget.value)}>
          <option value="">{emptyLabel}</option>
          {agents.data?.data.map((a) => (
            <option key={a.id} value={a.id}>
              {a.name}
            </option>
          ))}
          {value !== '' && agents.data?.data.every((a) => a.id !== value) && <option value={value}>{value}</option>}
        </select>
      )}
    </Field>
  );
}

export function TextFilter(props: {
  label: string;
  name: string;
  value: string;
  onChange: (v: string) => void;
  type?: 'text' | 'date';
}) {
  const onChange = (e: { currentTarget: HTMLInputElement }) => props.onChange(e.currentTarget.value);
  return (
    <Field label={props.label}>
      {({ id }) =>
        props.type === 'date' ? (
          <input id={id} name={props.name} type="date" value={props.value} onChange={onChange} />
        ) : (
          <input id={id} name={props.name} type="text" value={props.value} onChange={onChange} />
        )
      }
    </Field>
  );
}

export function SelectFilter(props: {
  label: string;
  name: string;
  value: string;
  options: string[];
  onChange: (v: string) => void;
}) {
  return (
    <Field label={props.label}>
      {({ id }) => (
        <select id={id} name={props.name} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
          <option value="">Any</option>
          {props.options.map((o) => (
            <option key={o} value={o}>
              {o.replace(/_/g, ' ')}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
